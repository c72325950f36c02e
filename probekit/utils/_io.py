"""Atomic file writes and JSON helpers shared by every writer in the toolkit."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from probekit.errors import InvalidParameterError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only if the block succeeds.

    Readers never see a half-written file and a failed write leaves nothing behind.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=suffix if suffix is not None else target.suffix + ".tmp",
        dir=target.parent,
    )
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def ensure_writable_dir(path: str | os.PathLike, parameter: str = "out") -> Path:
    """Create the directory ``path`` (and its parents) if needed and check that a file can be
    written in it. Call it before any slow work (loading a model, extraction), so that a bad
    output path fails at once with a one-line error instead of after the computation.

    Raises
    ------
    InvalidParameterError
        Naming ``parameter``: ``path`` is a file, or cannot be created or written.
    """
    target = Path(path).expanduser()
    if target.exists() and not target.is_dir():
        raise InvalidParameterError(parameter, str(path), "a directory path", "a file of that name exists")
    try:
        target.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".probekit-write-check-", dir=target)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        reason = f"{exc.strerror}" if exc.strerror else str(exc)
        raise InvalidParameterError(parameter, str(path), "a directory that can be created and written", reason) from None
    return target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def to_jsonable(obj: Any) -> Any:
    """Convert NumPy scalars/arrays, dataclasses, paths and NaN into JSON-friendly values.

    Non-finite floats become ``None`` so the output is strict JSON that any reader accepts.
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if hasattr(obj, "to_dict") and callable(obj.to_dict) and not isinstance(obj, Mapping):
        return to_jsonable(obj.to_dict())
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Path):
        return str(obj)
    return obj


def dumps_json(obj: Any) -> str:
    """Serialize ``obj`` as indented, strict JSON (see :func:`to_jsonable`)."""
    return json.dumps(to_jsonable(obj), indent=2, sort_keys=False, allow_nan=False) + "\n"


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically."""
    return atomic_write_text(path, dumps_json(obj))
