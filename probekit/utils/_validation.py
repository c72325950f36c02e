"""Input checks and random-state handling shared by the intrinsic tests."""

from __future__ import annotations

import numbers
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.utils._constraints import Interval, Options, check_parameter

RandomStateLike = int | np.random.Generator | np.random.SeedSequence | None


def as_embedding_matrix(value: Any, name: str, *, min_rows: int = 1) -> np.ndarray:
    """``value`` as a finite 2-D float64 array with at least ``min_rows`` rows (rows = items)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, type(value).__name__, "a 2-D numeric array (rows = items)") from exc
    if array.ndim != 2:
        raise InvalidParameterError(
            name, f"array of shape {array.shape}", "a 2-D array of embeddings (rows = items, columns = dimensions)"
        )
    if array.shape[0] < min_rows:
        raise InvalidParameterError(
            name, f"{array.shape[0]} item(s)", f"at least {min_rows} items (rows)"
        )
    if array.shape[1] < 1:
        raise InvalidParameterError(name, f"array of shape {array.shape}", "at least one embedding dimension")
    if not np.all(np.isfinite(array)):
        bad = np.flatnonzero(~np.all(np.isfinite(array), axis=1))
        raise InvalidParameterError(
            name, f"{bad.size} row(s) with NaN or infinite values (first: row {int(bad[0])})", "finite embeddings"
        )
    return array


def check_same_width(arrays: Mapping[str, np.ndarray]) -> int:
    """All arrays have the same number of columns; returns it."""
    widths = {name: a.shape[1] for name, a in arrays.items()}
    if len(set(widths.values())) > 1:
        first_name, first_width = next(iter(widths.items()))
        for name, width in widths.items():
            if width != first_width:
                raise InvalidParameterError(
                    name,
                    f"embeddings of width {width}",
                    f"width {first_width} like {first_name}",
                    "all embedding sets must come from the same encoder and layer",
                )
    return next(iter(widths.values()))


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (``bool`` refused)."""
    return int(check_parameter(value, name, [Interval(int, minimum, None)]))


def check_fraction(value: Any, name: str) -> float:
    """A float strictly between 0 and 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < float(value) < 1.0:
        raise InvalidParameterError(name, value, "a number strictly between 0 and 1")
    return float(value)


def check_choice(value: Any, name: str, choices: Sequence[Any]) -> Any:
    """``value`` when it is one of ``choices``; the error names ``name`` and lists the choices."""
    if not Options(*choices).accepts(value):
        raise InvalidParameterError(name, value, list(choices))
    return value


def resolve_seed(random_state: RandomStateLike, name: str = "random_state") -> tuple[int | None, Any]:
    """Turn ``random_state`` into (recorded seed, source of generators).

    An int is used as given; ``None`` draws a fresh seed from the operating system and records it
    so that the run can be repeated; a ``Generator`` or ``SeedSequence`` is used as is (recorded
    seed ``None``, or the sequence's entropy when it has one).
    """
    if random_state is None:
        seed = int(np.random.SeedSequence().entropy)
        return seed, np.random.SeedSequence(seed)
    if isinstance(random_state, np.random.Generator):
        return None, random_state
    if isinstance(random_state, np.random.SeedSequence):
        entropy = random_state.entropy
        return (int(entropy) if isinstance(entropy, numbers.Integral) else None), random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0:
        return int(random_state), np.random.SeedSequence(int(random_state))
    raise InvalidParameterError(
        name, random_state, "None, a non-negative integer seed or a numpy.random.Generator"
    )


def spawn_generators(source: Any, n: int) -> list[np.random.Generator]:
    """``n`` independent generators from a SeedSequence or a Generator (see :func:`resolve_seed`)."""
    if isinstance(source, np.random.Generator):
        return list(source.spawn(n))
    return [np.random.default_rng(child) for child in source.spawn(n)]


def check_number(
    value: Any,
    name: str,
    *,
    integer: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive: bool = False,
    allow_none: bool = False,
) -> Any:
    """A finite number (an integer with ``integer``) in ``[minimum, maximum]`` (open bounds with
    ``exclusive``); ``None`` passes with ``allow_none``. The error names ``name``, the value and the range.
    """
    if value is None and allow_none:
        return None
    interval = Interval(int if integer else float, minimum, maximum, closed="neither" if exclusive else "both")
    if not interval.accepts(value):
        raise InvalidParameterError(name, value, interval.describe() + (" (or none)" if allow_none else ""))
    return value


#: Python type names as they appear in annotations -> (check of a TOML/JSON value, description).
_ANNOTATION_TYPES: dict[str, tuple[Any, str]] = {
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "float": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v), "a number"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "Sequence": (lambda v: isinstance(v, list), "a list"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "tuple": (lambda v: isinstance(v, list), "a list"),
    "Mapping": (lambda v: isinstance(v, Mapping), "a table"),
    "dict": (lambda v: isinstance(v, Mapping), "a table"),
}


def check_annotated_type(value: Any, annotation: str, name: str) -> Any:
    """Check a configuration value against a parameter's annotation text (``"int | None"``: an
    integer; ``"Any"`` or no annotation: anything). Each ``|`` alternative is one type; its name
    before any ``[`` decides (``Sequence[int]``: a list). Ranges are checked separately
    (:func:`check_number`).
    """
    alternatives = [part.strip().split("[", 1)[0].split(".")[-1] for part in (annotation or "").split("|")]
    alternatives = [a for a in alternatives if a]
    if not alternatives or "Any" in alternatives:
        return value
    if value is None and "None" in alternatives:
        return value
    accepted = [_ANNOTATION_TYPES[a] for a in alternatives if a in _ANNOTATION_TYPES]
    if not accepted or any(check(value) for check, _ in accepted):
        return value
    raise InvalidParameterError(name, value, " or ".join(dict.fromkeys(text for _, text in accepted)))


def check_layer_index(value: Any, num_layers: int, name: str = "layer", *, shown: Any = None) -> int:
    """A hidden-state index of a model with ``num_layers`` layers as ``0 .. num_layers``.

    0 is the embedding output and ``num_layers`` (or -1) the last layer; negative values count from
    the end, so the valid range is ``[-(num_layers + 1), num_layers]``. The one check of a layer
    index: extraction, the probe suite, the command line and the study call it.

    Parameters
    ----------
    value : int
    num_layers : int
        The model's number of transformer layers.
    name : str
        The parameter as the user wrote it.
    shown : Any, optional
        The value to name in the error (the whole list a ``value`` came from); default ``value``.

    Returns
    -------
    int
        The index in ``0 .. num_layers``.
    """
    interval = Interval(int, -(num_layers + 1), num_layers)
    if not interval.accepts(value):
        raise InvalidParameterError(
            name, value if shown is None else shown, f"layer indices in [{-(num_layers + 1)}, {num_layers}]",
            f"0 is the embedding output, {num_layers} (or -1) the last of the model's {num_layers} layers",
        )
    return int(value) % (num_layers + 1)
