"""Running a study: the manifest, skipping finished units, one atomic file per unit, the backends.

Layout of a study directory ``DIR``::

    study.json                 the resolved configuration and every unit (id, kind, params)
    units/<unit id>.json       one file per finished unit, written atomically (temp + rename):
                               id, kind, params, result, provenance, wall_s
    runs/<run>/                a fine-tuning run (encoder x method x dataset x setting) in the layout of
                               ``probekit finetune``: run.json, folds/fold-NN/{original,augmented}.csv
                               and fold.json; metrics.json, results.md, results.png once all folds exist
    shared/                    work shared by units: debiased encoders, the embedding cache, locks
    report/                    written by ``probekit report DIR``

A unit is finished exactly when its file exists: the file is renamed into place after the unit's
work is complete, so a unit killed at any point (even by SIGKILL) has no file, and a rerun does it
again from the start (or from its last training checkpoint); no unit is ever counted half-done or
twice. A rerun of the same configuration skips the finished units.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from debias import get_method, read_debias_record
from probekit.encoders import (
    check_checkpoint,
    checkpoint_fingerprint,
    is_projection_dir,
    read_projection_dir,
    read_self_debias_dir,
)
from probekit.errors import InputFileError, InvalidParameterError, ModelLoadError, ProbekitError
from probekit.finetune import collect_run
from probekit.report import finetune_groups_markdown, finetune_markdown
from probekit.study._attribute import ATTRIBUTE_METHODS, study_attribute
from probekit.study._backends import BACKEND_BUILDS, BACKEND_RUNS
from probekit.study._config import DEFAULT_MODEL, StudyConfig
from probekit.study._dose_response import analyze_sweep
from probekit.study._inputs import check_benchmark_lengths
from probekit.study._units import Unit, needs_debiased_build, plan_units, run_key, shard_units
from probekit.study._work import UNITS_DIR, check_inputs
from probekit.utils import (
    atomic_write_text,
    check_output_dir,
    collect_provenance,
    ensure_writable_dir,
    is_main_process,
    read_json_file,
    write_json,
)

logger = logging.getLogger(__name__)

__all__ = ["StudySummary", "run_study", "dry_run_lines", "unit_done", "MANIFEST_FILE", "BACKENDS"]

MANIFEST_FILE = "study.json"
BACKENDS = tuple(BACKEND_RUNS)
_FORMAT = "probekit-study"
_FORMAT_VERSION = 1


@dataclass
class StudySummary:
    """What a call of :func:`run_study` did.

    Attributes
    ----------
    n_units : int
        Units of the whole study.
    n_selected : int
        Units of this shard (all of them without a shard).
    n_already_done : int
        Units of this shard finished before this call (skipped).
    n_run : int
        Units this call finished.
    failed : list of (unit id, message)
        Units that failed (with ``keep_going``).
    seconds : float
    """

    n_units: int
    n_selected: int
    n_already_done: int
    n_run: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0


def unit_done(out: str | os.PathLike, unit: Unit) -> bool:
    """Whether ``unit`` is finished in the study directory ``out`` (its file exists and is readable)."""
    path = Path(out) / UNITS_DIR / f"{unit.id}.json"
    if not path.is_file():
        return False
    try:
        return read_json_file(path, schema={"id": str})["id"] == unit.id
    except (OSError, ValueError):  # not produced by an atomic write; redo the unit
        logger.warning("unit file %s is unreadable; the unit is run again", path)
        return False


def dry_run_lines(config: StudyConfig, out: str | os.PathLike, shard: tuple[int, int] | None = None) -> list[str]:
    """One line per unit of the shard: ``<id> TAB <params as JSON> TAB done|todo``."""
    lines = []
    for unit in shard_units(plan_units(config), shard):
        params = json.dumps(unit.params, sort_keys=True, separators=(",", ":"))
        lines.append(f"{unit.id}\t{params}\t{'done' if unit_done(out, unit) else 'todo'}")
    return lines


def _write_manifest(out: Path, config: StudyConfig, units: Sequence[Unit]) -> None:
    """Write ``study.json``, or check that the one there describes the same study."""
    path = out / MANIFEST_FILE
    if path.is_file():
        try:
            saved = read_json_file(path, schema={"config": dict})
            old = StudyConfig.from_dict(saved["config"]).identity()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputFileError(f"cannot read {str(path)!r}: {exc}") from None
        new = config.identity()
        differing = sorted(k for k in new if json.dumps(new[k], sort_keys=True) != json.dumps(old.get(k), sort_keys=True))
        if differing and not _any_unit_finished(out):
            logger.info("%s describes another study but no unit of it finished; replacing it", path)
            differing = []
            path.unlink()
        if path.is_file() and differing:
            raise InvalidParameterError(
                "--out", str(out), "a new directory, or the directory of the same study",
                f"it holds a study whose [{'], ['.join(differing)}] differ from this config's; "
                "use another --out for another study",
            )
        if path.is_file():
            return
    if not is_main_process():
        return
    manifest = {
        "format": _FORMAT, "format_version": _FORMAT_VERSION,
        "config": config.to_dict(), "config_file": config.source,
        "units": [u.describe() for u in units],
        "provenance": collect_provenance(seeds={"seed": int(config.study["seed"])},
                                         parameters={"command": "probekit study", "n_units": len(units)}),
    }
    write_json(path, manifest)


def _any_unit_finished(out: Path) -> bool:
    units = out / UNITS_DIR
    return units.is_dir() and any(p.suffix == ".json" for p in units.iterdir())


def _looks_local(model: str) -> bool:
    return model.startswith((".", "/", "~")) or model.count("/") > 1 or Path(model).expanduser().exists()


_RECORD_READERS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "training": read_debias_record,
    "projection": lambda directory: read_projection_dir(directory)[1],
    "inference": read_self_debias_dir,
}


def _recorded_base(directory: Path, method: str) -> tuple[str, set[str], str]:
    """(file, fingerprints of the base model, attribute it was fitted for) recorded in the output
    directory of ``method`` (the attribute: the estimator's or the fit's ``attribute``, else gender).
    """
    spec = get_method(method)
    file = directory / spec.marker
    if not file.is_file():
        raise InvalidParameterError("debiased", str(directory), f"a {method} directory holding {spec.marker}")
    try:
        record = _RECORD_READERS[spec.kind](directory)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputFileError(f"cannot read {str(file)!r}: {exc}") from None
    base = record.get("base_model") if isinstance(record, dict) else None
    if not isinstance(base, dict):
        raise InputFileError(f"{str(file)!r} records no base model (damaged or edited file)")
    found = {base.get(k) for k in ("fingerprint", "encoder_fingerprint", "base_fingerprint")}
    fitted = ((record.get("hyperparameters") or {}).get("attribute")
              or ((record.get("provenance") or {}).get("parameters") or {}).get("attribute") or "gender")
    return str(file), {f for f in found if isinstance(f, str)}, str(fitted)


def check_study_inputs(config: StudyConfig, units: Sequence[Unit]) -> None:
    """What the units need, checked before anything is written: the encoders' model paths, the
    ``[corpus]`` files, and that every ``debiased`` directory was built from its encoder's model.
    """
    for path in config.corpus.get("files") or []:
        if not Path(path).expanduser().is_file():
            raise InputFileError(f"[corpus] files: no such file {path!r}")
    needed = {u.group for u in units}
    attribute = study_attribute(config.intrinsic)
    for index, encoder in enumerate(config.encoders):
        model, label = encoder["model"], encoder["label"]
        local = Path(model).expanduser()
        if (model != DEFAULT_MODEL and _looks_local(model) and not (local / "config.json").is_file()
                and not is_projection_dir(local)):
            raise InvalidParameterError(f"encoders[{index}].model", model, "'default', a Hugging Face id, or a "
                                        "checkpoint directory with config.json (or a projection directory)")
        if model != DEFAULT_MODEL and _looks_local(model) and not is_projection_dir(local):
            try:  # a checkpoint a unit would refuse (no usable tokenizer): refused before study.json is written
                check_checkpoint(model, trust_remote_code=encoder["trust_remote_code"])
            except ModelLoadError as exc:
                raise InvalidParameterError(f"encoders[{index}].model", model, "a usable checkpoint", str(exc)) from None
        debiased = {m: p for m, p in encoder["debiased"].items() if (label, m) in needed}
        if not debiased:
            continue
        expected = checkpoint_fingerprint(None if model == DEFAULT_MODEL else model,
                                          trust_remote_code=encoder["trust_remote_code"])
        for method, path in debiased.items():
            file, recorded, fitted = _recorded_base(Path(path).expanduser(), method)
            if ATTRIBUTE_METHODS.get(method) == "fit" and fitted != attribute:
                raise InvalidParameterError(f"encoders[{index}].debiased.{method}", path,
                                            f"a {method} directory fitted for {attribute} (the study's attribute)",
                                            f"{file} was fitted for {fitted}")
            if expected is not None and recorded and expected not in recorded:
                raise InvalidParameterError(
                    f"encoders[{index}].debiased.{method}", path, f"a {method} directory built from {model!r} "
                    f"(fingerprint {expected})", f"{file} records base fingerprint {', '.join(sorted(recorded))}")


def collect_finished_runs(config: StudyConfig, out: Path, units: Sequence[Unit], only: Sequence[Unit] | None = None) -> int:
    """``metrics.json`` and ``results.md`` of every fine-tuning run (of ``only``'s units, default
    all) whose folds are all finished (:func:`probekit.finetune.collect_run`; figures come from
    ``probekit report``); returns how many were written.
    """

    def run_of(unit: Unit) -> str:
        p = unit.params
        return run_key(config, p["encoder"], p["method"], p["dataset"], p["setting"])

    runs: dict[str, list[Unit]] = {}
    for unit in units:
        if unit.kind == "finetune":
            runs.setdefault(run_of(unit), []).append(unit)
    wanted = {run_of(u) for u in (units if only is None else only) if u.kind == "finetune"}
    written = 0
    for name, members in runs.items():
        if name not in wanted:
            continue
        run_dir = out / "runs" / name
        if (run_dir / "metrics.json").is_file() or not all(unit_done(out, u) for u in members):
            continue
        try:
            result = collect_run(run_dir, save=False)
            write_json(run_dir / "metrics.json", result.to_dict())
            saved = read_json_file(run_dir / "metrics.json")
            grouped = ((saved.get("settings") or {}).get("attribute") or "gender") != "gender"  # k groups
            atomic_write_text(run_dir / "results.md", finetune_groups_markdown(saved, name) if grouped
                              else finetune_markdown([saved], [name]))
            written += 1
        except (ProbekitError, OSError, ValueError) as exc:  # the unit files are the results; this is a convenience
            logger.warning("could not aggregate %s: %s", run_dir, exc)
    return written


def run_study(
    config: StudyConfig,
    out: str | os.PathLike,
    *,
    shard: tuple[int, int] | None = None,
    backend: str = "local",
    progress: bool = False,
    keep_going: bool = False,
    say: Callable[[str], None] | None = None,
    ray_address: str | None = None,
    ray_cpus_per_unit: float = 1.0,
    ray_gpus_per_unit: float = 0.0,
    prepare: bool = False,
) -> StudySummary:
    """Run the units of a study (or of one shard of it) that are not finished yet.

    Parameters
    ----------
    config : StudyConfig
        From :func:`probekit.study.load_config`.
    out : path
        The study directory (created; a directory of the same study continues).
    shard : (i, n), optional
        Run only shard ``i`` of ``n`` (:func:`probekit.study.shard_units`): a SLURM job array or
        several machines writing to one directory.
    backend : {"local", "ray"}
        ``"local"``: in this process, in grid order. ``"ray"``: each unit (and each debiased
        encoder to build) is a Ray task on the cluster at ``ray_address`` (or the Ray instance
        already initialized in this process, or a new local one); the tasks write to ``out``,
        which every node must see.
    progress : bool
        tqdm bars of the library calls (local backend).
    keep_going : bool
        A unit that fails is reported and the others still run; otherwise the first failure stops
        the run (after the units already finished are saved).
    say : callable, optional
        Receives the status lines (default: ``logging`` at INFO).
    ray_address, ray_cpus_per_unit, ray_gpus_per_unit
        Where the Ray cluster is and what one unit asks of it.
    prepare : bool
        Only build the shared work (debiased encoders) that the unfinished units need, run no
        unit: a first step on a cluster, so that no job waits while another one trains an encoder.

    Returns
    -------
    StudySummary
    """
    say = say or logger.info
    if backend not in BACKENDS:
        raise InvalidParameterError("backend", backend, BACKENDS)
    started = time.perf_counter()
    # Everything is checked before anything is written: the directory, the data, the encoders, the corpus.
    out_dir = check_output_dir(out, parameter="--out", marker=MANIFEST_FILE, reuse=True, kind="a study directory")
    units = plan_units(config)
    selected = shard_units(units, shard)
    todo = [u for u in selected if not unit_done(out_dir, u)]
    if todo:
        check_inputs(config, todo)  # data and encoder paths, before anything is written or loaded
        check_study_inputs(config, todo)
        check_benchmark_lengths(config, todo)  # a pair too long for the model fails here, not in its unit
    out_dir = ensure_writable_dir(out, "--out")
    _write_manifest(out_dir, config, units)
    summary = StudySummary(n_units=len(units), n_selected=len(selected), n_already_done=len(selected) - len(todo))
    where = f"shard {shard[0]}/{shard[1]}: " if shard else ""
    say(f"{where}{len(units)} units in the study, {len(selected)} in this run, {summary.n_already_done} already done, "
        f"{len(todo)} to run ({sum(u.kind == 'intrinsic' for u in todo)} intrinsic, "
        f"{sum(u.kind == 'finetune' for u in todo)} fine-tunes, {sum(u.kind == 'point' for u in todo)} sweep points) with the {backend} backend")
    options = {"address": ray_address, "cpus_per_unit": ray_cpus_per_unit, "gpus_per_unit": ray_gpus_per_unit,
               "progress": progress}
    if todo and prepare:
        _prepare_shared(config, out_dir, todo, backend=backend, say=say, **options)
    elif todo:
        BACKEND_RUNS[backend](config, out_dir, todo, summary, keep_going=keep_going, say=say, **options)
    if is_main_process():
        n = collect_finished_runs(config, out_dir, units, only=selected)  # runs with a fold in this shard
        if n:
            say(f"aggregated {n} finished fine-tuning run(s) under {out_dir / 'runs'} (metrics.json, results.md)")
        if config.sweep and sum(unit_done(out_dir, u) for u in units) >= 3:
            path = analyze_sweep(out_dir, n_bootstrap=int(config.sweep["n_bootstrap"]), n_planned=len(units),
                                 random_state=int(config.study["seed"]))
            say(f"dose-response analysis of the finished points: {path}")
    summary.seconds = time.perf_counter() - started
    done = sum(unit_done(out_dir, u) for u in units)
    say(f"{where}finished {summary.n_run} unit(s) in {summary.seconds:.0f} s; {len(summary.failed)} failed; "
        f"{done} of {len(units)} units of the study are done")
    return summary


def _prepare_shared(config: StudyConfig, out: Path, todo: Sequence[Unit], *, backend: str, say: Callable[[str], None],
                    **options: Any) -> None:
    groups = [g for g in dict.fromkeys(u.group for u in todo) if needs_debiased_build(config, *g)]
    if not groups:
        say("no debiased encoder to build for these units")
        return
    BACKEND_BUILDS[backend](config, out, groups, say=say, **options)
