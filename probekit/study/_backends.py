"""The backends that run a study's units: local (in this process) and Ray; ``--shard i/n`` (see
:func:`probekit.study.shard_units`) splits the units between runs of either.

Every backend has the same two entry points, :data:`BACKEND_RUNS` (run units, filling the
summary) and :data:`BACKEND_BUILDS` (build the debiased encoders units need, ``--prepare``), called
with the same keywords; a backend ignores the options that are not its own (the local backend the
Ray resources, Ray the progress bars, which its tasks never show).

The Ray backend is scheduling only: each debiased encoder the units need is built by one Ray task,
and each unit is one Ray task that depends on the build of its encoder (Ray starts it once the
build is done). Tasks receive the resolved configuration as a plain dict and the unit's id, do the
same work as the local backend (:class:`probekit.study._work.Workspace`), and write their unit
file into the study directory themselves, so every node must see that directory (a shared file
system); what travels back to the driver is one short line per unit. Ray's worker processes are
reused, so a worker that runs several units of one encoder loads it once. A task runs torch with
as many threads as the CPUs it asks for (``--ray-cpus-per-unit``, at least one).
"""

from __future__ import annotations

import json
import logging
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Sequence

from probekit.errors import ProbekitError
from probekit.study._config import StudyConfig
from probekit.study._records import describe_result
from probekit.study._units import Unit, needs_debiased_build, plan_units
from probekit.study._work import Workspace

logger = logging.getLogger(__name__)

__all__ = ["run_local", "build_local", "run_ray", "build_ray", "BACKEND_RUNS", "BACKEND_BUILDS"]

_WORKSPACES: dict[tuple[str, str], Any] = {}


def _workspace(config_dict: dict[str, Any], out: str) -> Any:
    """The worker process's workspace for this study (kept between tasks: encoders stay loaded)."""
    key = (out, json.dumps(config_dict, sort_keys=True))
    if key not in _WORKSPACES:
        _WORKSPACES.clear()
        _WORKSPACES[key] = Workspace(StudyConfig.from_dict(config_dict), out, progress=False)
    return _WORKSPACES[key]


def _threads(n: int) -> None:
    """As many torch threads as CPUs the task asked for (Ray workers otherwise start with one)."""
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


def _ray_build(config_dict: dict[str, Any], out: str, label: str, method: str, threads: int = 1) -> str:
    """Ray task: build the debiased encoder of (label, method) under shared/ (if not built yet)."""
    _threads(threads)
    return str(_workspace(config_dict, out).build_debiased(label, method))


def _ray_unit(config_dict: dict[str, Any], out: str, unit_id: str, _built: Any = None, threads: int = 1) -> dict[str, Any]:
    """Ray task: run one unit and write its file; returns {"id", "wall_s", "line"}."""
    _threads(threads)
    workspace = _workspace(config_dict, out)
    unit = next(u for u in plan_units(workspace.config) if u.id == unit_id)
    record = workspace.execute(unit)
    workspace.write(record)
    return {"id": unit_id, "wall_s": record["wall_s"], "line": describe_result(record)}


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ProbekitError("--backend ray needs Ray: pip install 'probekit[ray]' (or pip install 'ray>=2.9')") from None
    return ray


def _init(ray: Any, address: str | None) -> bool:
    if ray.is_initialized():
        return False
    ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return True


def build_ray(config: StudyConfig, out: Path, groups: Sequence[tuple[str, str]], *, address: str | None,
              cpus_per_unit: float, gpus_per_unit: float, say: Callable[[str], None], progress: bool = False) -> None:
    """Build the debiased encoders of ``groups`` as Ray tasks (``--prepare --backend ray``)."""
    ray = _import_ray()
    started_here = _init(ray, address)
    try:
        build = ray.remote(_ray_build).options(num_cpus=cpus_per_unit, num_gpus=gpus_per_unit, max_retries=2)
        threads = max(1, int(cpus_per_unit))
        refs = {build.remote(config.to_dict(), str(Path(out).resolve()), label, method, threads): (label, method)
                for label, method in groups}
        for ref, (label, method) in refs.items():
            try:
                say(f"debiased encoder {label}/{method}: {ray.get(ref)}")
            except Exception as exc:
                cause = getattr(exc, "cause", None) or exc
                raise (cause if isinstance(cause, ProbekitError) else exc) from None
    finally:
        if started_here:
            ray.shutdown()


def run_ray(config: StudyConfig, out: Path, todo: Sequence[Unit], summary: Any, *, address: str | None,
            cpus_per_unit: float, gpus_per_unit: float, keep_going: bool, say: Callable[[str], None],
            progress: bool = False) -> None:
    """Run ``todo`` as Ray tasks (see the module docstring); fills ``summary``."""
    ray = _import_ray()
    started_here = _init(ray, address)
    try:
        resources = ray.cluster_resources()
        say(f"Ray cluster: {resources.get('CPU', 0):g} CPU(s), {resources.get('GPU', 0):g} GPU(s); "
            f"{cpus_per_unit:g} CPU / {gpus_per_unit:g} GPU per unit")
        # a task whose worker dies (node lost, preempted) is retried: units are idempotent; an error
        # raised by the unit itself is not retried
        options = {"num_cpus": cpus_per_unit, "num_gpus": gpus_per_unit, "max_retries": 2}
        build = ray.remote(_ray_build).options(**options)
        run_unit = ray.remote(_ray_unit).options(**options)
        config_dict = config.to_dict()
        out_text = str(Path(out).resolve())
        threads = max(1, int(cpus_per_unit))
        builds = {}
        for label, method in dict.fromkeys(u.group for u in todo):
            if needs_debiased_build(config, label, method):
                builds[(label, method)] = build.remote(config_dict, out_text, label, method, threads)
        pending = {run_unit.remote(config_dict, out_text, u.id, builds.get(u.group), threads): u for u in todo}
        finished = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                unit = pending.pop(ref)
                finished += 1
                try:
                    reply = ray.get(ref)
                except Exception as exc:  # ray.exceptions.RayTaskError wraps the task's exception
                    cause = getattr(exc, "cause", None) or exc
                    if not keep_going:
                        for other in pending:
                            ray.cancel(other)
                        if isinstance(cause, ProbekitError):
                            raise cause from None
                        raise
                    summary.failed.append((unit.id, f"{type(cause).__name__}: {cause}"))
                    say(f"[{finished}/{len(todo)}] FAILED {unit.label()}: {type(cause).__name__}: {cause}")
                    continue
                summary.n_run += 1
                say(f"[{finished}/{len(todo)}] {unit.label()}: {reply['line']} ({reply['wall_s']:.1f} s)")
    finally:
        if started_here:
            ray.shutdown()


def build_local(config: StudyConfig, out: Path, groups: Sequence[tuple[str, str]], *, say: Callable[[str], None],
                progress: bool = False, **ray_options: Any) -> None:
    """Build the debiased encoders of ``groups`` in this process (``--prepare``)."""
    workspace = Workspace(config, out, progress=progress)
    for label, method in groups:
        started = time.perf_counter()
        directory = workspace.build_debiased(label, method)
        say(f"debiased encoder {label}/{method}: {directory} ({time.perf_counter() - started:.0f} s)")


def run_local(config: StudyConfig, out: Path, todo: Sequence[Unit], summary: Any, *, progress: bool,
              keep_going: bool, say: Callable[[str], None], **ray_options: Any) -> None:
    """Run ``todo`` in this process, in grid order, writing each unit's file; fills ``summary``."""
    workspace = Workspace(config, out, progress=progress)
    for index, unit in enumerate(todo, 1):
        try:
            record = workspace.execute(unit)
        except Exception as exc:
            if not keep_going or isinstance(exc, KeyboardInterrupt):
                raise
            message = f"{type(exc).__name__}: {exc}"
            summary.failed.append((unit.id, message))
            say(f"[{index}/{len(todo)}] FAILED {unit.label()}: {message}")
            logger.debug("%s", traceback.format_exc())
            continue
        workspace.write(record)
        summary.n_run += 1
        say(f"[{index}/{len(todo)}] {unit.label()}: {describe_result(record)} ({record['wall_s']:.1f} s)")


#: backend name -> the function that runs units / builds the debiased encoders they need.
BACKEND_RUNS: dict[str, Callable[..., None]] = {"local": run_local, "ray": run_ray}
BACKEND_BUILDS: dict[str, Callable[..., None]] = {"local": build_local, "ray": build_ray}
