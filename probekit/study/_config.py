"""The study configuration: a TOML file read with :mod:`tomllib`, checked key by key.

A study (Tokpo et al. 2023, §3-4) is the grid encoders x debiasing methods x data settings x
datasets x folds, plus the intrinsic suite once per (encoder, method). The file names that grid
and the options of every part; every table accepts a fixed set of keys and an unknown key is an
error that lists the valid ones. Options of the library calls the units make (the intrinsic
suite, the debiasing methods, the dataset loaders, the fine-tuning configuration) are the keyword
arguments of those calls, read from their signatures, so the file accepts exactly what the
library accepts::

    [study]
    name = "default"
    seed = 0                                 # folds, debiasing, the intrinsic suite
    methods = ["none", "sent-debias", "inlp", "leace", "cda", "context-debias"]
    settings = ["original", "scrubbed", "swapped"]
    folds = 3
    intrinsic = true                         # the intrinsic suite once per (encoder, method)

    [[encoders]]
    label = "minilm"
    model = "default"                        # the embedded encoder; a hub id; a local directory
    # debiased = { cda = "/ckpt/minilm-cda" } # methods taken from a path instead of built

    [[datasets]]
    name = "synthetic"
    kind = "synthetic"                       # synthetic | bios | jigsaw (path = ...)
    n_examples = 560

    [corpus]                                 # debiasing and intrinsic corpus (default: built-in)
    [finetune]                               # probekit.finetune.FinetuneConfig fields
    [intrinsic]                              # probekit.run_probe_suite keywords
    [methods.cda]                            # debias.CDA keywords (likewise for every method)
    [benchmarks]                             # the field's benchmarks per (encoder, method), each optional:
    # crows_pairs = "crows_pairs_anonymized.csv"  stereoset = "dev.json"  seat_suite = "seat/"
    # pppl = true                            # pseudo-perplexity on the built-in held-out sample
    # pppl_corpus = "held_out.txt"           # ... or on a text file (one sentence per line)
    [run]                                    # device, dtype
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from debias import DEBIAS_METHODS, get_method
from debias import PROJECTION_METHODS as _PROJECTIONS
from debias import TRAINING_METHODS as _TRAINING
from probekit import run_probe_suite
from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune import (
    DATA_SETTINGS,
    FinetuneConfig,
    load_bios,
    load_jigsaw,
    make_synthetic_bios,
    make_synthetic_group_bios,
)
from probekit.intrinsic import (
    CROWS_SCORINGS,
    SEAT_ALTERNATIVES,
    STEREOSET_DOMAINS,
    crows_pairs,
    pseudo_perplexity,
    run_seat_suite,
    stereoset,
)
from probekit.study._attribute import check_attribute_options, resolve_study_attribute
from probekit.study._config_checks import (
    _NO_DEFAULT,
    _check_keys,
    _check_like_library,
    _check_type,
    _is_int,
    _option_name,
    _options_table,
    _signature_options,
    _where,
)
from probekit.study._sweep import parse_sweep
from probekit.utils import check_parameter, declared_constraints

__all__ = [
    "METHODS",
    "SETTINGS",
    "DATASET_KINDS",
    "BENCHMARKS",
    "StudyConfig",
    "load_config",
    "parse_config",
    "default_config_path",
]

#: Debiasing methods, in the order of the grid ("none": the encoder as it is).
METHODS = ("none", *DEBIAS_METHODS)  # the registry of debias, in its order
#: Methods that fit a projection on the encoder's outputs (a projection directory).
PROJECTION_METHODS = _PROJECTIONS
#: Methods that change the weights (a new checkpoint).
TRAINING_METHODS = _TRAINING
#: Training-data settings of the downstream study (Tokpo et al. 2023, §4).
SETTINGS = DATA_SETTINGS  # the settings table of probekit.finetune
DATASET_KINDS = ("synthetic", "bios", "jigsaw")
DEFAULT_MODEL = "default"

_TABLES = ("study", "encoders", "datasets", "corpus", "finetune", "intrinsic", "methods", "benchmarks", "run", "sweep")


def default_config_path() -> Path:
    """The study run when ``probekit study`` gets no CONFIG (shipped with the package)."""
    return Path(__file__).resolve().parent / "default.toml"


def _method_schema(method: str) -> dict[str, Any]:
    """Options of one method: its constructor's and its fit's keywords (seed: the study's)."""
    seeded = ("seed", "random_state")
    fit_exclude = ("encoder", "corpus", "random_state", "cache_dir", "progress", "generator", "checkpoint_dir",
                   "resume", "callback", "attributes", "stereotypes")
    cls = get_method(method).estimator
    schema = _signature_options(cls.__init__, seeded, cls)
    if method in PROJECTION_METHODS:
        schema.update(_signature_options(cls.fit_from_encoder, fit_exclude, cls))
    return schema


def _finetune_schema() -> dict[str, Any]:

    declared = declared_constraints(FinetuneConfig)
    return {f.name: (f.default, f.type if isinstance(f.type, str) else getattr(f.type, "__name__", ""), declared.get(f.name))
            for f in dataclasses.fields(FinetuneConfig) if f.name not in ("seed", "device")}


def _intrinsic_schema() -> dict[str, Any]:

    return _signature_options(run_probe_suite, ("encoder", "corpus", "random_state", "cache_dir", "progress"))


def _dataset_schema(kind: str, attribute: str = "gender") -> dict[str, Any]:
    common = {"name": (_NO_DEFAULT, "str", None), "kind": (_NO_DEFAULT, "str", None)}
    if kind == "synthetic" and attribute != "gender":  # biographies with k groups (race)
        return {**common, "n_examples": (560, "int", None),
                **_signature_options(make_synthetic_group_bios, ("n_train", "n_test", "random_state"))}
    if kind == "synthetic":

        return {**common, "n_examples": (560, "int", None),
                **_signature_options(make_synthetic_bios, ("n_train", "n_test", "random_state"))}
    if kind == "bios":

        return {**common, "path": (_NO_DEFAULT, "str", None), "max_examples": (None, "int | None", None),
                **_signature_options(load_bios, ("name_or_path",))}

    return {**common, "path": (_NO_DEFAULT, "str", None), "max_examples": (None, "int | None", None),
            **_signature_options(load_jigsaw, ("path",))}


_STUDY_KEYS = {
    "name": (str, "study"),
    "seed": (int, 0),
    "methods": ("str-list", list(METHODS)),
    "settings": ("str-list", list(SETTINGS)),
    "folds": (int, 10),
    "intrinsic": (bool, True),
    "finetune": (bool, True),
}
_ENCODER_KEYS = ("label", "model", "trust_remote_code", "debiased")
_CORPUS_KEYS = {
    "files": ("str-list", []),
    "mode": (("lines", "paragraphs"), "lines"),
    "encoding": (str, "utf-8"),
    "hf_dataset": (str, None),
    "text_column": (str, "text"),
    "split": (str, "train"),
    "frames_per_word": (int, None),
}
_RUN_KEYS = {
    "device": (str, None),
    "dtype": (("float32", "bfloat16", "float16"), None),
}


def _simple_table(table: Any, keys: Mapping[str, tuple[Any, Any]], path: str) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise InvalidParameterError(path, table, "a table")
    _check_keys(table, list(keys), path)
    out = {}
    for key, (kind, default) in keys.items():
        out[key] = _check_type(table[key], kind, _where(path, key)) if key in table else copy.deepcopy(default)
    return out


_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def _check_label(value: str, where: str) -> str:
    if not _LABEL.fullmatch(value) or len(value) > 64:
        raise InvalidParameterError(where, value, "a label of letters, digits, '.', '_', '+' or '-' (at most 64, "
                                    "starting with a letter or digit)")
    return value


def _default_label(model: str) -> str:
    if model == DEFAULT_MODEL:
        return "minilm"
    name = Path(model.rstrip("/")).name or "encoder"
    return re.sub(r"[^A-Za-z0-9._+-]", "-", name)[:64].lstrip("._+-") or "encoder"


# ------------------------------------------------------------------------------------------ the config


@dataclasses.dataclass
class StudyConfig:
    """A checked study configuration, every default filled in.

    Attributes
    ----------
    study : dict
        ``name``, ``seed``, ``methods``, ``settings``, ``folds``, ``intrinsic``, ``finetune``.
    encoders : list of dict
        ``label``, ``model`` (``"default"``, a hub id or a directory), ``trust_remote_code``,
        ``debiased`` ({method: directory} of debiased encoders taken from a path).
    datasets : list of dict
        ``name``, ``kind`` and the loader's options (``path`` for bios and jigsaw).
    corpus : dict
        Corpus of the debiasing methods and the intrinsic suite (default: built-in templates).
    finetune : dict
        Fields of :class:`probekit.finetune.FinetuneConfig` set in the file (seed: the study's).
    intrinsic : dict
        Keywords of :func:`probekit.run_probe_suite` set in the file.
    methods : dict
        {method: keywords of the method's constructor and fit} set in the file.
    run : dict
        ``device``, ``dtype``: how, not what (not part of any unit's identity).
    benchmarks : dict
        ``[benchmarks]``: the data of CrowS-Pairs, StereoSet, the SEAT suite and pseudo-perplexity
        and their options (:func:`enabled_benchmarks`); empty when the file has no such table.
    sweep : dict
        ``[sweep]`` checked by :func:`probekit.study._sweep.parse_sweep` (strength axes and seeds of
        a dose-response study); empty when the file has no such table.
    source : str or None
        The file read.
    """

    study: dict[str, Any]
    encoders: list[dict[str, Any]]
    datasets: list[dict[str, Any]]
    corpus: dict[str, Any]
    finetune: dict[str, Any]
    intrinsic: dict[str, Any]
    methods: dict[str, dict[str, Any]]
    run: dict[str, Any]
    benchmarks: dict[str, Any] = dataclasses.field(default_factory=dict)
    sweep: dict[str, Any] = dataclasses.field(default_factory=dict)
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The resolved configuration (what ``study.json`` records)."""
        out = {
            "study": self.study, "encoders": self.encoders, "datasets": self.datasets, "corpus": self.corpus,
            "finetune": self.finetune, "intrinsic": self.intrinsic, "methods": self.methods, "run": self.run,
            "benchmarks": self.benchmarks,
        }
        if self.sweep:  # a study without [sweep] keeps the record (and identity) it had before the table existed
            out["sweep"] = self.sweep
        return copy.deepcopy(out)

    def identity(self) -> dict[str, Any]:
        """What decides the results: the configuration without data locations and run options.

        Two runs writing to one directory (shards, machines with other mount points) must agree
        on this; ``path`` of a dataset and ``[run]`` may differ between them.
        """
        out = self.to_dict()
        out.pop("run")
        out["study"].pop("name", None)
        for dataset in out["datasets"]:
            dataset.pop("path", None)
        if not enabled_benchmarks(self):
            out.pop("benchmarks")  # a study without [benchmarks] keeps the identity it had before the table existed
        else:  # which benchmarks, not where their files are (unit ids hash the files' contents)
            out["benchmarks"] = {k: (v is not None) if k in BENCHMARK_PATHS else v for k, v in out["benchmarks"].items()}
        return out

    def with_data_paths(self, paths: Mapping[str, str]) -> "StudyConfig":
        """A copy with the ``path`` of the named datasets replaced (``--data-path NAME=PATH``)."""
        names = [d["name"] for d in self.datasets]
        new = copy.deepcopy(self)
        for name, path in paths.items():
            if name not in names:
                raise InvalidParameterError("--data-path", f"{name}={path}", f"NAME=PATH with NAME one of {names}")
            dataset = next(d for d in new.datasets if d["name"] == name)
            if dataset["kind"] == "synthetic":
                raise InvalidParameterError("--data-path", f"{name}={path}", "a bios or jigsaw dataset",
                                            f"{name!r} is generated (kind synthetic)")
            dataset["path"] = str(path)
        return new

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> "StudyConfig":
        """Rebuild a configuration from :meth:`to_dict` (already checked; e.g. in a Ray worker)."""
        return cls(**{f.name: copy.deepcopy(data[f.name]) for f in dataclasses.fields(cls)
                      if f.name != "source" and (f.name in data or f.name not in ("benchmarks", "sweep"))}, source=source)

    def encoder(self, label: str) -> dict[str, Any]:
        """The ``[[encoders]]`` entry labelled ``label``."""
        return next(e for e in self.encoders if e["label"] == label)

    def dataset(self, name: str) -> dict[str, Any]:
        """The ``[[datasets]]`` entry named ``name``."""
        return next(d for d in self.datasets if d["name"] == name)


def _parse_study(table: Any) -> dict[str, Any]:
    study = _simple_table(table, _STUDY_KEYS, "study")
    for key, valid in (("methods", METHODS), ("settings", SETTINGS)):
        values = study[key]
        if not values:
            raise InvalidParameterError(f"study.{key}", values, f"a non-empty list of {', '.join(valid)}")
        for value in values:
            if value not in valid:
                raise InvalidParameterError(f"study.{key}", value, valid)
        if len(set(values)) != len(values):
            raise InvalidParameterError(f"study.{key}", values, "a list without repeats")
    if study["folds"] < 2:
        raise InvalidParameterError("study.folds", study["folds"], "an integer >= 2 (stratified cross-validation)")
    if study["seed"] < 0:
        raise InvalidParameterError("study.seed", study["seed"], "an integer >= 0")
    return study


def _parse_encoders(value: Any) -> list[dict[str, Any]]:
    if value is None:
        value = [{}]
    if not isinstance(value, list) or not value:
        raise InvalidParameterError("encoders", value, "one or more [[encoders]] tables")
    out = []
    for index, table in enumerate(value):
        path = f"encoders[{index}]"
        if not isinstance(table, Mapping):
            raise InvalidParameterError(path, table, "a table")
        _check_keys(table, _ENCODER_KEYS, path)
        model = _check_type(table.get("model", DEFAULT_MODEL), str, f"{path}.model")
        label = _check_label(_check_type(table.get("label", _default_label(model)), str, f"{path}.label"), f"{path}.label")
        trust = _check_type(table.get("trust_remote_code", False), bool, f"{path}.trust_remote_code")
        debiased = table.get("debiased", {})
        if not isinstance(debiased, Mapping):
            raise InvalidParameterError(f"{path}.debiased", debiased, "a table {method = directory}")
        _check_keys(debiased, [m for m in METHODS if m != "none"], f"{path}.debiased")
        debiased = {m: _check_type(p, "path", f"{path}.debiased.{m}") for m, p in debiased.items()}
        out.append({"label": label, "model": model, "trust_remote_code": trust, "debiased": dict(sorted(debiased.items()))})
    labels = [e["label"] for e in out]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise InvalidParameterError("encoders.label", repeated[0], "a label used by one encoder only")
    return out


def _parse_datasets(value: Any, attribute: str = "gender") -> list[dict[str, Any]]:
    if value is None:
        value = [{"name": "synthetic", "kind": "synthetic"}]
    if not isinstance(value, list) or not value:
        raise InvalidParameterError("datasets", value, "one or more [[datasets]] tables")
    out = []
    for index, table in enumerate(value):
        path = f"datasets[{index}]"
        if not isinstance(table, Mapping):
            raise InvalidParameterError(path, table, "a table")
        kind = table.get("kind", "synthetic")
        _check_type(kind, DATASET_KINDS, f"{path}.kind")
        schema = _dataset_schema(kind, attribute)
        options = _options_table(table, schema, path)
        name = _check_label(_check_type(options.get("name", kind), str, f"{path}.name"), f"{path}.name")
        resolved: dict[str, Any] = {"name": name, "kind": kind}
        if kind == "synthetic":
            n = options.get("n_examples", 560)
            if not _is_int(n) or n < 14:
                raise InvalidParameterError(f"{path}.n_examples", n, "an integer >= 14 (one biography per profession)")
            resolved["n_examples"] = n
        else:
            if "path" not in options:
                raise InvalidParameterError(f"{path}.path", None, f"a file or saved datasets folder of {kind} "
                                            "(or give it on the command line: --data-path NAME=PATH)")
            resolved["path"] = _check_type(options["path"], "path", f"{path}.path")
            maximum = options.get("max_examples")
            if maximum is not None and (not _is_int(maximum) or maximum < 2):
                raise InvalidParameterError(f"{path}.max_examples", maximum, "an integer >= 2 (a stratified subsample)")
            resolved["max_examples"] = maximum
        resolved.update({k: v for k, v in options.items() if k not in resolved and k not in ("name", "kind")})
        out.append(resolved)
    names = [d["name"] for d in out]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InvalidParameterError("datasets.name", repeated[0], "a name used by one dataset only")
    return out


#: Options the study sets where the library's default would not run "every method that applies":
#: CDA on an encoder without a masked-LM head (the embedded default) adds one.
STUDY_METHOD_DEFAULTS: dict[str, dict[str, Any]] = {"cda": {"add_mlm_head": True}}


def _parse_methods(value: Any, methods: Sequence[str]) -> dict[str, dict[str, Any]]:
    value = {} if value is None else value
    if not isinstance(value, Mapping):
        raise InvalidParameterError("methods", value, "tables [methods.NAME]")
    _check_keys(value, [m for m in METHODS if m != "none"], "methods")
    out = {m: _options_table(value[m], _method_schema(m), f"methods.{m}") for m in METHODS if m in value}
    for method in methods:
        if method in STUDY_METHOD_DEFAULTS:
            out[method] = {**STUDY_METHOD_DEFAULTS[method], **out.get(method, {})}
    return {m: dict(sorted(out[m].items())) for m in METHODS if m in out}


# ------------------------------------------------------------------------------------------ [benchmarks]

#: The benchmarks a study runs per (encoder, method) when ``[benchmarks]`` names them, in unit order.
BENCHMARKS = ("crows_pairs", "stereoset", "seat_suite", "pppl")
#: Keys of ``[benchmarks]`` that name a file or directory (checked to exist before a unit runs).
BENCHMARK_PATHS = ("crows_pairs", "stereoset", "seat_suite", "pppl_corpus")
#: key -> (kind as in :func:`_check_type`, default). Each benchmark is optional.
_BENCHMARK_KEYS: dict[str, tuple[Any, Any]] = {
    "crows_pairs": ("path", None),              # crows_pairs_anonymized.csv (public layout)
    "crows_scoring": (CROWS_SCORINGS, "diff"),
    "crows_bias_types": ("str-list", None),
    "stereoset": ("path", None),                # StereoSet dev.json (public layout)
    "stereoset_domains": ("str-list", None),
    "stereoset_n_resamples": (int, 1000),
    "seat_suite": ("path", None),               # directory of the published *.jsonl tests
    "seat_tests": ("str-list", None),
    "seat_alternative": (SEAT_ALTERNATIVES, "greater"),
    "seat_n_permutations": (int, 100_000),
    "seat_n_bootstrap": (int, 1000),
    "pppl": (bool, False),                      # pseudo-perplexity on the built-in held-out sample
    "pppl_corpus": ("path", None),              # ... or on this text file (turns pppl on)
    "pppl_max_sentences": (int, None),
    "confidence_level": (float, 0.95),
    "batch_tokens": (int, None),
}
#: Numeric ``[benchmarks]`` keys -> (the benchmark function that declares the parameter, its name):
#: each is checked against that declaration, as the function and the command line check it.
_BENCHMARK_OWNERS: dict[str, tuple[Any, str]] = {
    "stereoset_n_resamples": (stereoset, "n_resamples"),
    "seat_n_permutations": (run_seat_suite, "n_permutations"),
    "seat_n_bootstrap": (run_seat_suite, "n_bootstrap"),
    "pppl_max_sentences": (pseudo_perplexity, "max_sentences"),
    "confidence_level": (crows_pairs, "confidence_level"),
    "batch_tokens": (crows_pairs, "batch_tokens"),
}


def _parse_benchmarks(table: Any) -> dict[str, Any]:
    """``[benchmarks]``: every key checked (type, range, choices); ``{}`` when the table is absent or empty."""
    if isinstance(table, Mapping) and not table:
        return {}
    out = _simple_table(table, _BENCHMARK_KEYS, "benchmarks")
    for key, (owner, parameter) in _BENCHMARK_OWNERS.items():
        check_parameter(out[key], _option_name("benchmarks", key), declared_constraints(owner)[parameter])
    for domain in out["stereoset_domains"] or []:
        if domain not in STEREOSET_DOMAINS:
            raise InvalidParameterError(_option_name("benchmarks", "stereoset_domains"), domain, STEREOSET_DOMAINS)
    if out["pppl_corpus"] is not None:
        if "pppl" in table and not out["pppl"]:
            raise InvalidParameterError(_option_name("benchmarks", "pppl"), False, "true (or no pppl key) with pppl_corpus",
                                        "pppl_corpus names a corpus for pseudo-perplexity, which pppl = false turns off")
        out["pppl"] = True
    for key in ("crows_bias_types", "stereoset_domains", "seat_tests"):
        if out[key] is not None and not out[key]:
            raise InvalidParameterError(_option_name("benchmarks", key), out[key], "a non-empty list (or no key: all)")
    if not any(out[name] for name in BENCHMARKS):
        raise InvalidParameterError("benchmarks", sorted(table), "a table naming at least one benchmark: "
                                    "crows_pairs = FILE, stereoset = FILE, seat_suite = DIR, pppl = true or pppl_corpus = FILE")
    return out


def enabled_benchmarks(config: StudyConfig) -> list[str]:
    """The benchmarks ``[benchmarks]`` names, in :data:`BENCHMARKS` order (``[]`` without the table)."""
    table = config.benchmarks or {}
    return [name for name in BENCHMARKS if table.get(name)]


def parse_config(data: Mapping[str, Any], *, source: str | None = None, attribute: str | None = None) -> StudyConfig:
    """Check a configuration already read from TOML (a dict) and fill in the defaults.

    ``attribute`` (``probekit study --attribute NAME``) replaces the file's ``[intrinsic] attribute``;
    the study is then made for it (:mod:`probekit.study._attribute`).

    Raises
    ------
    InvalidParameterError
        An unknown table or key (the message lists the valid ones), a value of the wrong type or
        out of range, a repeated encoder label or dataset name.
    """
    if not isinstance(data, Mapping):
        raise InvalidParameterError("config", type(data).__name__, "a TOML document (tables)")
    _check_keys(data, _TABLES, "")
    study = _parse_study(data.get("study", {}))
    encoders = _parse_encoders(data.get("encoders"))
    named = attribute or (data.get("intrinsic") or {}).get("attribute", "gender")  # checked below
    datasets = _parse_datasets(data.get("datasets"), named if isinstance(named, str) else "gender")
    corpus = _simple_table(data.get("corpus", {}), _CORPUS_KEYS, "corpus")
    if corpus["files"] and corpus["hf_dataset"]:
        raise InvalidParameterError("corpus.files/corpus.hf_dataset", [corpus["files"], corpus["hf_dataset"]],
                                    "one corpus source, not both")
    finetune = _options_table(data.get("finetune", {}), _finetune_schema(), "finetune")
    intrinsic_table = data.get("intrinsic", {})
    if attribute is not None and isinstance(intrinsic_table, Mapping):
        intrinsic_table = {**intrinsic_table, "attribute": attribute}
    intrinsic = _options_table(intrinsic_table, _intrinsic_schema(), "intrinsic")
    methods = _parse_methods(data.get("methods"), study["methods"])
    benchmarks = _parse_benchmarks(data.get("benchmarks", {}))
    run = _simple_table(data.get("run", {}), _RUN_KEYS, "run")
    named = resolve_study_attribute(study, intrinsic, methods, benchmarks, data.get("sweep"), datasets)  # before [sweep]
    check_attribute_options(named, intrinsic_table, from_command_line=attribute is not None)
    sweep = parse_sweep(data.get("sweep"), study, method_schema=_method_schema, finetune_schema=_finetune_schema(),
                        check=_check_like_library)
    config = StudyConfig(study=study, encoders=encoders, datasets=datasets, corpus=corpus, finetune=finetune,
                         intrinsic=intrinsic, methods=methods, run=run, benchmarks=benchmarks, sweep=sweep, source=source)
    if not (study["intrinsic"] or study["finetune"] or enabled_benchmarks(config)):
        raise InvalidParameterError("study.intrinsic/study.finetune", False,
                                    "at least one of them true (or a [benchmarks] table naming a benchmark)")
    if study["finetune"]:
        finetune_config(config)  # FinetuneConfig checks its own values now, not in the first unit
    return config


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise InvalidParameterError("CONFIG", str(path), "Python >= 3.11 (tomllib) or the tomli package to read TOML") from None
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise InputFileError(f"study config {str(path)!r}: no such file") from None
    except OSError as exc:
        raise InputFileError(f"study config {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputFileError(f"study config {str(path)!r} is not UTF-8 text, so not a TOML file "
                             f"({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"study config {str(path)!r} is not valid TOML: {exc}") from None


def load_config(path: str | os.PathLike | None = None, *, attribute: str | None = None) -> StudyConfig:
    """Read and check a study configuration (TOML); ``None``: the default study shipped with probekit.
    ``attribute``: replaces the file's ``[intrinsic] attribute`` (:func:`parse_config`).
    """
    file = default_config_path() if path is None else Path(path).expanduser()
    return parse_config(_read_toml(file), source=str(file), attribute=attribute)


def finetune_config(config: StudyConfig) -> Any:
    """The :class:`probekit.finetune.FinetuneConfig` of the study (seed: the study's; device: ``[run]``)."""
    device = config.run.get("device")
    try:
        return FinetuneConfig(**config.finetune, seed=int(config.study["seed"]), device="cpu" if device == "cpu" else None)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"[finetune] {exc.parameter}", exc.value, exc.valid) from None
