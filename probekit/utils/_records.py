"""Reading files that cannot crash the reader: regular files only, JSON with limits and a schema, npz.

Every saved record probekit reads back (a projection directory's ``projection.json``, a Self-Debias
``self_debias.json``, a fine-tuning ``fold.json`` / ``run.json``, a study's ``study.json`` and unit
records, a debiased checkpoint's ``debias.json``) and every JSON input (StereoSet, SEAT suites,
``results.json`` of earlier runs) goes through :func:`read_json_file`: the file must be a regular
file (a FIFO would block for ever, a device never ends), at most ``max_bytes`` long, valid UTF-8
JSON nested at most ``max_depth`` deep, and -- with a ``schema`` -- of the declared types. Any
failure is one :class:`~probekit.errors.InputFileError` naming the file and the field.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, Callable

from probekit.errors import InputFileError

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "Check",
    "Nullable",
    "check_regular_file",
    "read_json_file",
    "validate_record",
    "load_npz",
]

#: Largest JSON file read (results of a large study stay far below).
MAX_JSON_BYTES = 256 * 1024 * 1024
#: Deepest nesting of objects and arrays accepted (probekit's own records nest at most ~8 deep).
MAX_JSON_DEPTH = 64

_KINDS = {
    stat.S_ISDIR: "a directory", stat.S_ISFIFO: "a FIFO (named pipe)", stat.S_ISCHR: "a character device",
    stat.S_ISBLK: "a block device", stat.S_ISSOCK: "a socket",
}


def check_regular_file(path: str | os.PathLike, parameter: str | None = None) -> Path:
    """``path`` if it is an existing regular file (symbolic links followed); checked without opening it.

    Raises
    ------
    InputFileError
        Naming ``parameter`` (when given) and the path: missing, or a directory, FIFO, device or socket.
    """
    where = f"{parameter}: " if parameter else ""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputFileError(f"{where}no such file {str(path)!r}") from None
    except (OSError, ValueError) as exc:
        raise InputFileError(f"{where}cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS.items() if test(mode)), "not a regular file")
        raise InputFileError(f"{where}{str(path)!r} is {kind}, not a regular file")
    return Path(path)


class Check:
    """A schema entry: a predicate on the value and what it must be, in words.

    Parameters
    ----------
    predicate : callable
        Returns whether a value is valid.
    description : str
        What a valid value looks like (``"a number > 0"``), for messages.
    """

    def __init__(self, predicate: Callable[[Any], bool], description: str):
        self.predicate = predicate
        self.description = description


class Nullable:
    """A schema entry for a field that may be missing or ``null``.

    Parameters
    ----------
    spec : Any
        The schema of the value when present.
    """

    def __init__(self, spec: Any):
        self.spec = spec


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _describe(spec: Any) -> str:
    if isinstance(spec, Check):
        return spec.description
    if isinstance(spec, Nullable):
        return _describe(spec.spec) + " or null"
    if isinstance(spec, dict):
        return "an object"
    if isinstance(spec, list):
        return "an array"
    if isinstance(spec, tuple):
        return " or ".join(_describe(s) for s in spec)
    return {bool: "true or false", int: "an integer", float: "a finite number", str: "a string",
            dict: "an object", list: "an array"}.get(spec, getattr(spec, "__name__", str(spec)))


def _matches(spec: Any, value: Any) -> bool:
    if isinstance(spec, tuple):
        return any(_matches(s, value) for s in spec)
    if isinstance(spec, Check):
        try:
            return bool(spec.predicate(value))
        except (TypeError, ValueError, ArithmeticError):
            return False
    if spec is float:
        return _is_number(value)
    if spec is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(spec, type):
        return isinstance(value, spec)
    return True


def validate_record(data: Any, schema: Any, source: str, *, field: str = "") -> Any:
    """Check ``data`` against ``schema``; return it unchanged.

    A schema is a type (``int``, ``float`` -- finite --, ``str``, ``bool``, ``dict``, ``list``), a
    tuple of alternatives, a :class:`Check`, an :class:`Nullable`, a dict (an object with those keys;
    other keys allowed) or a one-element list (an array of such items).

    Raises
    ------
    InputFileError
        ``"{source}: field 'a.b[3]' must be ..., got ..."``.
    """
    if isinstance(schema, Nullable):
        return data if data is None else validate_record(data, schema.spec, source, field=field)
    if isinstance(schema, dict):
        if not isinstance(data, dict):
            _fail(source, field, "an object", data)
        for key, spec in schema.items():
            name = f"{field}.{key}" if field else key
            if key not in data:
                if not isinstance(spec, Nullable):
                    raise InputFileError(f"{source}: field {name!r} is missing (a damaged or foreign file)")
                continue
            validate_record(data[key], spec, source, field=name)
        return data
    if isinstance(schema, list):
        if not isinstance(data, list):
            _fail(source, field, "an array", data)
        for index, item in enumerate(data):
            validate_record(item, schema[0], source, field=f"{field}[{index}]")
        return data
    if not _matches(schema, data):
        _fail(source, field, _describe(schema), data)
    return data


def _fail(source: str, field: str, expected: str, value: Any) -> None:
    shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    if len(shown) > 60:
        shown = shown[:57] + "..."
    where = f"field {field!r}" if field else "the top level"
    raise InputFileError(f"{source}: {where} must be {expected}, got {shown} (a damaged or hand-edited file)")


def _depth(data: Any) -> int:
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, depth)
            if depth > MAX_JSON_DEPTH:
                return depth
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return deepest


def read_json_file(
    path: str | os.PathLike,
    *,
    schema: Any = None,
    parameter: str | None = None,
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """Parse the JSON file ``path`` within limits and check it against ``schema`` (:func:`validate_record`).

    Parameters
    ----------
    path : path
    schema : optional
        The record's schema; ``None`` checks the limits only.
    parameter : str, optional
        The option that named the file (``--data``), put in front of messages.
    max_bytes, max_depth : int
        Largest file and deepest nesting accepted.

    Raises
    ------
    InputFileError
        One line naming the file (and the field): not a regular file, too large, not UTF-8, not JSON,
        nested too deep, or not of the schema.
    """
    file = check_regular_file(path, parameter)
    source = f"{parameter}: {str(path)!r}" if parameter else repr(str(path))
    try:
        size = file.stat().st_size
        if size > max_bytes:
            raise InputFileError(f"{source} is {size} bytes; at most {max_bytes} bytes of JSON are read")
        raw = file.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{source} cannot be read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{source} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputFileError(f"{source} is nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise InputFileError(f"{source} is not valid JSON ({exc})") from None
    if _depth(data) > max_depth:
        raise InputFileError(f"{source} is nested deeper than {max_depth} levels")
    if schema is not None:
        validate_record(data, schema, source)
    return data


def load_npz(path: str | os.PathLike, *, parameter: str | None = None) -> dict[str, Any]:
    """Every array of the npz file ``path``, its headers checked before anything is allocated.

    The file must be a regular file; each array's declared size must fit what the file stores
    (:func:`probekit.utils.npz_declared_sizes`) and no array may hold Python objects (never unpickled).

    Raises
    ------
    InputFileError
        Naming ``parameter`` and the file.
    """
    import zipfile

    import numpy as np

    from probekit.utils._io import npz_declared_sizes

    check_regular_file(path, parameter)
    where = f"{parameter}: " if parameter else ""
    try:
        npz_declared_sizes(path)
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except InputFileError as exc:
        raise InputFileError(f"{where}{exc}") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise InputFileError(f"{where}{str(path)!r} is not a readable npz file ({exc})") from None

