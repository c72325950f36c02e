"""The key-by-key checks of a study configuration: unknown keys, value types, and options checked as
the library checks them (against the owner's declared constraints, :mod:`probekit.utils._constraints`).
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Mapping, Sequence

from probekit.errors import InvalidParameterError
from probekit.utils import check_annotated_type, check_parameter, declared_constraints

#: A parameter without a default (the file must give it).
_NO_DEFAULT = object()


def _where(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _check_keys(table: Mapping[str, Any], valid: Sequence[str], path: str) -> None:
    unknown = [k for k in table if k not in valid]
    if unknown:
        raise InvalidParameterError(
            _where(path, unknown[0]), table[unknown[0]], f"a known key; valid keys in [{path or 'top level'}]: "
            + ", ".join(valid),
            f"unknown key {unknown[0]!r}",
        )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_type(value: Any, kind: Any, where: str) -> Any:
    """``kind``: int, float, bool, str, "str-list", "path", or a tuple of choices."""
    if isinstance(kind, tuple):
        if value not in kind:
            raise InvalidParameterError(where, value, kind)
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise InvalidParameterError(where, value, "true or false")
        return value
    if kind is int:
        if not _is_int(value):
            raise InvalidParameterError(where, value, "an integer")
        return value
    if kind is float:
        if not (_is_int(value) or isinstance(value, float)) or not math.isfinite(value):
            raise InvalidParameterError(where, value, "a number")
        return float(value)
    if kind in (str, "path"):
        if not isinstance(value, str) or not value:
            raise InvalidParameterError(where, value, "a non-empty string")
        return value
    if kind == "str-list":
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise InvalidParameterError(where, value, "a list of strings")
        return list(value)
    raise AssertionError(kind)  # pragma: no cover


def _signature_options(function: Callable, exclude: Sequence[str], owner: Any = None) -> dict[str, tuple[Any, str, Any]]:
    """Keyword parameters of ``function``: name -> (default, annotation text, declared constraints or
    ``None``), other than ``exclude``. The constraints are those ``owner`` (default: ``function``)
    declares (:func:`probekit.utils.declared_constraints`): the study checks a value exactly as the
    library does, from the one declaration.
    """
    declared = declared_constraints(function if owner is None else owner)
    out = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if name in exclude or name == "self" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        default = parameter.default if parameter.default is not parameter.empty else _NO_DEFAULT
        annotation = parameter.annotation if parameter.annotation is not parameter.empty else ""
        annotation = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
        out[name] = (default, annotation, declared.get(name))
    return out


def _check_like_library(value: Any, entry: tuple[Any, str, Any], where: str) -> Any:
    """Check a value as the library does: against the parameter's declared constraints where it has
    them, else against its annotation (``int | None`` -> an integer; ``Any`` or none: anything).
    """
    _, annotation, constraints = entry
    if constraints is not None:
        return check_parameter(value, where, constraints)
    return check_annotated_type(value, annotation, where)


def _option_name(path: str, key: str) -> str:
    """How a message names an option: ``[methods.sent-debias] k`` (the table as written in the file)."""
    if not path or path.startswith(("datasets", "encoders")):
        return _where(path, key)
    return f"[{path}] {key}"


def _options_table(table: Any, schema: Mapping[str, Any], path: str) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise InvalidParameterError(path, table, "a table")
    _check_keys(table, list(schema), path)
    return {k: _check_like_library(v, schema[k], _option_name(path, k)) for k, v in table.items()}


# ------------------------------------------------------------------------------------------ schemas
