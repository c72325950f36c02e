"""Computing a unit: the intrinsic suite, one benchmark, or one fold of one fine-tuning run, and its record.

:class:`Workspace` is what one process needs to execute units of a study in ``out``: the study's
inputs (:mod:`probekit.study._inputs`), its encoders (:mod:`probekit.study._encoders`), the shared
work built once with locks (:mod:`probekit.study._shared`), and the directory layout
(:mod:`probekit.study._layout`). :meth:`Workspace.execute` computes a unit's record
(:func:`intrinsic_unit`, :func:`benchmark_unit`, :func:`finetune_unit`); :meth:`Workspace.write` writes it atomically.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from probekit import run_probe_suite
from probekit.errors import MissingMLMHeadError
from probekit.finetune import run_fold
from probekit.intrinsic import crows_pairs, pseudo_perplexity, run_seat_suite, stereoset
from probekit.study._attribute import study_attribute
from probekit.study._config import StudyConfig, finetune_config
from probekit.study._encoders import StudyEncoders
from probekit.study._inputs import StudyInputs, check_inputs
from probekit.study._layout import RUNS_DIR, SHARED_DIR, UNITS_DIR, StudyPaths
from probekit.study._points import SweepState, point_unit
from probekit.study._shared import SharedWork
from probekit.study._units import Unit, run_key
from probekit.utils import collect_provenance, is_main_process, read_json_file, wait_for_everyone, write_json

__all__ = ["Workspace", "run_fold_unit", "intrinsic_unit", "benchmark_unit", "finetune_unit", "check_inputs",
           "UNITS_DIR", "SHARED_DIR", "RUNS_DIR"]


def run_fold_unit(
    encoder: Any, data: Any, fold: int, *, setting: str, folds: int, config: Any, run_dir: Path, data_name: str,
    embed: Callable[[Sequence[str]], np.ndarray] | None, progress: bool, leakage_readers: Sequence[str] = (),
    attribute: str = "gender",
) -> dict[str, Any]:
    """One fold of one fine-tuning run: :func:`probekit.finetune.run_fold` with ``resume=True``.

    A finished fold (its ``fold.json``) is returned as saved; a fold interrupted during full
    fine-tuning continues from its last epoch-end checkpoint. ``embed`` (frozen path): the
    embeddings shared by every unit of the encoder and dataset (:meth:`SharedWork.frozen_embedder`).
    ``leakage_readers``: the nonlinear readers of the study's ``[intrinsic] readers``, which also read
    the fold's leakage. ``attribute``: the study's (k groups: :func:`probekit.finetune.run_fold` with
    ``attribute``; leakage then read by the linear k-class probe only).
    """
    groups = {} if attribute == "gender" else {"attribute": attribute}
    return run_fold(encoder, data, fold, setting=setting, folds=folds, config=config, out_dir=run_dir, resume=True,
                    progress=progress, data_name=data_name, embed=embed, leakage_readers=leakage_readers, **groups)


def intrinsic_unit(workspace: "Workspace", unit: Unit) -> tuple[dict[str, Any], dict[str, Any]]:
    """The intrinsic suite of the unit's (encoder, method): (result, provenance)."""
    p, config = unit.params, workspace.config
    encoder = workspace.encoder(p["encoder"], p["method"])
    seed = int(config.study["seed"])
    result = run_probe_suite(encoder, workspace.corpus(), random_state=seed, cache_dir=workspace.cache_dir,
                             progress=workspace.progress, **config.intrinsic)
    provenance = collect_provenance(model=encoder.describe(), seeds={"seed": seed},
                                    parameters={"command": "probekit study", "unit": unit.spec})
    return result.to_dict(), provenance


def _run_benchmark(name: str, encoder: Any, data: Any, table: dict[str, Any], seed: int, progress: bool) -> Any:
    """One benchmark's result object (``table``: the study's ``[benchmarks]``)."""
    common = {"batch_tokens": table["batch_tokens"], "progress": progress}
    if name == "crows_pairs":
        return crows_pairs(encoder, data, scoring=table["crows_scoring"], confidence_level=table["confidence_level"],
                           **common)
    if name == "stereoset":
        return stereoset(encoder, data, n_resamples=table["stereoset_n_resamples"],
                         confidence_level=table["confidence_level"], random_state=seed, **common)
    if name == "seat_suite":
        return run_seat_suite(encoder, data, alternative=table["seat_alternative"],
                              n_permutations=table["seat_n_permutations"], n_bootstrap=table["seat_n_bootstrap"],
                              confidence_level=table["confidence_level"], random_state=seed, **common)
    return pseudo_perplexity(encoder, data, max_sentences=table["pppl_max_sentences"], **common)


#: Per-example columns a benchmark unit keeps (enough for paired tests against the base; no texts).
_EXAMPLE_COLUMNS = {
    "crows_pairs": ("row", "bias_type", "stereo_antistereo", "sent_more_score", "sent_less_score", "outcome"),
    "stereoset": ("id", "bias_type", "target", "stereotype_score", "anti_stereotype_score", "unrelated_score",
                  "stereotype_preferred", "n_related_above_unrelated"),
    "pppl": ("n_tokens", "pll", "skipped"),
}


def _examples(name: str, result: Any) -> list[dict[str, Any]] | None:
    rows = {"crows_pairs": getattr(result, "pairs", None), "stereoset": getattr(result, "examples", None),
            "pppl": getattr(result, "sentences", None)}.get(name)
    if rows is None:
        return None
    return [{k: row[k] for k in _EXAMPLE_COLUMNS[name]} for row in rows]


def benchmark_unit(workspace: "Workspace", unit: Unit) -> tuple[dict[str, Any], dict[str, Any]]:
    """One benchmark of ``[benchmarks]`` on the unit's (encoder, method): (result, provenance).

    The result is the benchmark's ``results.json`` dict (``overall`` ...) with the per-example
    scores under ``examples`` (no texts); for an encoder without the masked-LM head that CrowS-Pairs,
    StereoSet and pseudo-perplexity need, ``{"benchmark", "skipped": True, "reason"}`` instead.
    """
    p, config = unit.params, workspace.config
    name = p["benchmark"]
    data = workspace.inputs.benchmark(name)
    encoder = workspace.encoder(p["encoder"], p["method"])
    seed = int(config.study["seed"])
    provenance = collect_provenance(model=encoder.describe(), seeds={"seed": seed},
                                    parameters={"command": "probekit study", "unit": unit.spec})
    try:
        result = _run_benchmark(name, encoder, data, config.benchmarks, seed, workspace.progress)
    except MissingMLMHeadError as exc:
        return {"benchmark": name, "skipped": True, "reason": str(exc)}, provenance
    record = {**result.to_dict(), "skipped": False}
    examples = _examples(name, result)
    if examples is not None:
        record["examples"] = examples
    return record, provenance


def finetune_unit(workspace: "Workspace", unit: Unit) -> tuple[dict[str, Any], dict[str, Any]]:
    """One fold of the unit's fine-tuning run (its directory under ``runs/``): (fold result, provenance)."""
    p, config = unit.params, workspace.config
    encoder = workspace.encoder(p["encoder"], p["method"])
    data = workspace.dataset(p["dataset"])
    settings = finetune_config(config)
    embed = workspace.frozen_embedder(encoder, p["dataset"], data, settings) if settings.frozen else None
    attribute = study_attribute(config.intrinsic)
    readers = (config.intrinsic.get("readers") or ()) if attribute == "gender" else ()
    run_dir = workspace.paths.run_dir(run_key(config, p["encoder"], p["method"], p["dataset"], p["setting"]))
    entry = run_fold_unit(encoder, data, int(p["fold"]), setting=p["setting"], folds=int(config.study["folds"]),
                          config=settings, run_dir=run_dir, data_name=p["dataset"], embed=embed,
                          progress=workspace.progress, leakage_readers=readers, attribute=attribute)
    saved = read_json_file(run_dir / "run.json", schema={"settings": dict})["settings"]
    provenance = collect_provenance(
        model=encoder.describe(), seeds={"seed": int(config.study["seed"])},
        parameters={"command": "probekit study", "unit": unit.spec, "run_dir": f"{RUNS_DIR}/{run_dir.name}",
                    "finetune_settings": {k: v for k, v in saved.items() if k != "model"}},
    )
    return entry, provenance


_UNIT_KINDS = {"intrinsic": intrinsic_unit, "benchmark": benchmark_unit, "finetune": finetune_unit, "point": point_unit}


class Workspace:
    """What one process needs to execute units of a study in ``out``.

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
        self.paths = StudyPaths(self.out)
        self.inputs = StudyInputs(config)
        self.shared = SharedWork(config, self.paths, progress=progress)
        self.encoders = StudyEncoders(config, self.shared, self.inputs.corpus)
        self.sweep = SweepState()  # sweep points: fitted projections and word embeddings kept between points

    @property
    def cache_dir(self) -> Path:
        """The extraction engine's on-disk cache, shared by the units (``shared/embeddings``)."""
        return self.paths.cache_dir

    def corpus(self) -> Any:
        """The corpus of the debiasing methods and the intrinsic suite (``[corpus]``)."""
        return self.inputs.corpus()

    def dataset(self, name: str) -> Any:
        """The dataset ``name`` in probekit.finetune's representation (loaded once per process)."""
        return self.inputs.dataset(name)

    def encoder(self, label: str, method: str) -> Any:
        """The encoder of (encoder, method): the base, the one from a path, or the one built."""
        return self.encoders.get(label, method)

    def build_debiased(self, label: str, method: str) -> Path:
        """The debiased encoder of (encoder, method), built once under ``shared/debiased/``."""
        return self.encoders.build(label, method)

    def frozen_embedder(self, encoder: Any, dataset: str, data: Any, config: Any) -> Callable[[Sequence[str]], np.ndarray]:
        """The frozen path's shared embeddings (:meth:`SharedWork.frozen_embedder`)."""
        return self.shared.frozen_embedder(encoder, dataset, data, config)

    def execute(self, unit: Unit) -> dict[str, Any]:
        """Run one unit and return its record (not written; see :meth:`write`)."""
        started = time.perf_counter()
        result, provenance = _UNIT_KINDS[unit.kind](self, unit)
        return {"id": unit.id, "kind": unit.kind, "params": dict(unit.params), "result": result,
                "provenance": provenance, "wall_s": time.perf_counter() - started}

    def write(self, record: dict[str, Any]) -> Path:
        """Write a unit's record atomically (one file per unit; the main process only)."""
        path = self.paths.unit_file(record["id"])
        if is_main_process():
            write_json(path, record)
        wait_for_everyone()
        return path
