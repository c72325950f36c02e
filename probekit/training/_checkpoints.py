"""Checkpoints of the training loop: written atomically as safetensors and JSON, read back for exact resume.

The layout (``step-NNNNNNNN`` directories) is described in :mod:`probekit.training._loop`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Mapping

import torch

from probekit.errors import InvalidParameterError
from probekit.training._config import TrainingConfig

__all__ = ["latest_checkpoint"]

_CHECKPOINT_PREFIX = "step-"
_STATE_FILE = "trainer_state.json"
_FORMAT_VERSION = 1
# Settings that may change between an interrupted run and its resumption without changing the result.
_RESUME_FREE = frozenset({"checkpoint_every", "keep_checkpoints", "log_every"})


# ---------------------------------------------------------------------------------------------
# checkpoints


def _checkpoints(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    found = []
    for path in directory.iterdir():
        if path.is_dir() and path.name.startswith(_CHECKPOINT_PREFIX) and (path / _STATE_FILE).is_file():
            try:
                found.append((int(path.name[len(_CHECKPOINT_PREFIX):]), path))
            except ValueError:
                continue
    return [path for _, path in sorted(found)]


def latest_checkpoint(directory: str | os.PathLike) -> Path | None:
    """The most recent complete checkpoint in ``directory``, or ``None``."""
    found = _checkpoints(Path(directory))
    return found[-1] if found else None


def _cpu_state(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    # One clone per key: tied weights become separate tensors, which safetensors can store.
    return {k: v.detach().to("cpu", copy=True).contiguous() for k, v in module.state_dict().items()}


def _save_checkpoint(
    directory: Path,
    step: int,
    module: torch.nn.Module,
    optimizer: Any,
    scheduler: Any,
    scaler: Any,
    state: dict[str, Any],
    best_state: dict[str, torch.Tensor] | None,
    keep: int,
) -> Path:
    from safetensors.torch import save_file


    directory.mkdir(parents=True, exist_ok=True)
    final = directory / f"{_CHECKPOINT_PREFIX}{step:08d}"
    tmp = directory / f".{final.name}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    try:
        save_file(_cpu_state(module), str(tmp / "model.safetensors"))
        optimizer_state = optimizer.state_dict()
        tensors, scalars = {}, {}
        for index, values in optimizer_state["state"].items():
            for name, value in values.items():
                if torch.is_tensor(value):
                    tensors[f"{index}.{name}"] = value.detach().to("cpu", copy=True).contiguous()
                else:
                    scalars[f"{index}.{name}"] = value
        save_file(tensors, str(tmp / "optimizer.safetensors"))
        if best_state is not None:
            save_file(best_state, str(tmp / "best.safetensors"))
        full_state = {
            **state,
            "format_version": _FORMAT_VERSION,
            "optimizer_param_groups": optimizer_state["param_groups"],
            "optimizer_scalars": scalars,
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict() if scaler is not None else None,
        }
        (tmp / _STATE_FILE).write_text(json.dumps(full_state, indent=1), encoding="utf-8")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    for old in _checkpoints(directory)[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def _load_checkpoint(path: Path, module: torch.nn.Module, optimizer: Any, scheduler: Any, scaler: Any) -> tuple[dict[str, Any], dict[str, torch.Tensor] | None]:
    from safetensors.torch import load_file

    state = json.loads((path / _STATE_FILE).read_text(encoding="utf-8"))
    if state.get("format_version") != _FORMAT_VERSION:
        raise InvalidParameterError("checkpoint", str(path), f"a checkpoint of format version {_FORMAT_VERSION}")
    module.load_state_dict(load_file(str(path / "model.safetensors")), strict=True)
    tensors = load_file(str(path / "optimizer.safetensors"))
    per_param: dict[int, dict[str, Any]] = {}
    for key, value in [*tensors.items(), *state["optimizer_scalars"].items()]:
        index, name = key.split(".", 1)
        per_param.setdefault(int(index), {})[name] = value
    groups = state["optimizer_param_groups"]
    for group in groups:
        if isinstance(group.get("betas"), list):
            group["betas"] = tuple(group["betas"])
    optimizer.load_state_dict({"state": per_param, "param_groups": groups})
    scheduler.load_state_dict(state["scheduler"])
    if scaler is not None and state.get("scaler") is not None:
        scaler.load_state_dict(state["scaler"])
    best = load_file(str(path / "best.safetensors")) if (path / "best.safetensors").is_file() else None
    return state, best


def _check_resumable(state: Mapping[str, Any], config: TrainingConfig, base_seed: int, n_examples: int, path: Path) -> None:
    saved = {k: v for k, v in state["config"].items() if k not in _RESUME_FREE}
    current = {k: v for k, v in config.to_dict().items() if k not in _RESUME_FREE}
    differing = sorted(k for k in set(saved) | set(current) if saved.get(k) != current.get(k))
    if state["base_seed"] != base_seed:
        differing.append(f"base seed ({state['base_seed']} vs {base_seed})")
    if state["n_examples"] != n_examples:
        differing.append(f"number of examples ({state['n_examples']} vs {n_examples})")
    if differing:
        raise InvalidParameterError(
            "resume", str(path), "a checkpoint made with the same settings and data",
            "these differ from the interrupted run: " + ", ".join(differing)
            + "; resume with the original settings, or start over in an empty checkpoint directory",
        )
