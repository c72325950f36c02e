"""Parameter constraints, declared once on the class (or function) that owns the parameter.

scikit-learn's ``_parameter_constraints`` convention: an estimator or configuration class maps each
parameter to a list of alternatives, and a value is valid when it satisfies any one of them::

    class INLP(...):
        _parameter_constraints = {
            "n_iterations": [Interval(int, 1, None)],
            "chance_tolerance": [Interval(float, 0, 1, closed="left")],
            "classifier": [Options("logistic", "linear_svm")],
            "random_state": ["random_state"],
            "max_sentences": [Interval(int, 1, None), None],
        }

The class checks its values with :func:`validate_parameters`; the command line derives each option's
parser, default and help from the same declaration (:func:`parse_declared`, :func:`describe_constraints`)
and the study checks its configuration keys against it (:func:`declared_constraints`), so a range is
written in exactly one place.

Alternatives: an :class:`Interval` (a finite number in a range), :class:`Options` (one of listed
values), ``None`` (the value ``None``), ``"boolean"``, ``"random_state"`` (``None`` or an integer seed
in numpy's range ``[0, 2**32 - 1]``), ``"string"`` (a non-empty string) or a Python type.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
from typing import Any, Callable, Mapping, Sequence

from probekit.errors import InvalidParameterError

__all__ = [
    "Interval",
    "Options",
    "MAX_SEED",
    "check_parameter",
    "validate_parameters",
    "describe_constraints",
    "declared_constraints",
    "declared_defaults",
    "parse_declared",
]

#: The largest seed numpy's legacy and new generators both accept (``SeedSequence`` takes more, but
#: ``np.random.RandomState`` and scikit-learn's ``random_state`` stop at 2**32 - 1).
MAX_SEED = 2**32 - 1

_CLOSED = ("both", "left", "right", "neither")


@dataclasses.dataclass(frozen=True)
class Interval:
    """A finite number of ``kind`` (``int`` or ``float``) between ``low`` and ``high``.

    Parameters
    ----------
    kind : type
        ``int`` (integers only; ``bool`` is refused) or ``float`` (any finite real number).
    low, high : float or None
        The bounds; ``None`` leaves that side open-ended.
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the interval.
    """

    kind: type
    low: float | None
    high: float | None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise TypeError(f"Interval kind must be int or float, got {self.kind!r}")
        if self.closed not in _CLOSED:
            raise TypeError(f"Interval closed must be one of {_CLOSED}, got {self.closed!r}")

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a finite number of this kind inside the bounds."""
        wanted = numbers.Integral if self.kind is int else numbers.Real
        if isinstance(value, bool) or not isinstance(value, wanted) or not math.isfinite(float(value)):
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.low is not None and (value < self.low if left_closed else value <= self.low):
            return False
        if self.high is not None and (value > self.high if right_closed else value >= self.high):
            return False
        return True

    def describe(self) -> str:
        """``"an integer >= 1"``, ``"a number in [0, 1)"``, ..."""
        noun = "an integer" if self.kind is int else "a number"
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return f"{noun} in {'[' if left_closed else '('}{_number(self.low)}, {_number(self.high)}{']' if right_closed else ')'}"
        if self.low is not None:
            return f"{noun} {'>=' if left_closed else '>'} {_number(self.low)}"
        if self.high is not None:
            return f"{noun} {'<=' if right_closed else '<'} {_number(self.high)}"
        return noun

    def parse(self, text: str) -> Any:
        """A command-line string as this kind (``int("1e3")`` fails; ``"1e3"`` as a float does not)."""
        return int(text) if self.kind is int else float(text)


class Options:
    """One of a fixed set of values (compared with ``==``).

    Parameters
    ----------
    *values
        The valid values, in the order messages list them.
    """

    def __init__(self, *values: Any):
        if not values:
            raise TypeError("Options needs at least one value")
        self.values = tuple(values)

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is one of the options (a ``bool`` never equals ``0``/``1`` options here)."""
        return any(value == v and isinstance(value, bool) == isinstance(v, bool) for v in self.values)

    def describe(self) -> str:
        """``"one of 'a', 'b'"``."""
        return "one of " + ", ".join(repr(v) for v in self.values)

    def parse(self, text: str) -> Any:
        """A command-line string as the option it names (options that are not strings are matched by text)."""
        for value in self.values:
            if text == str(value):
                return value
        raise ValueError(text)

    def __repr__(self) -> str:
        return f"Options{self.values!r}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and other.values == self.values

    def __hash__(self) -> int:
        return hash(self.values)


#: How a command-line string becomes a value for the named alternatives.
_TEXT_PARSERS: dict[Any, Callable[[str], Any]] = {"random_state": int, "string": str}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)


def _accepts(alternative: Any, value: Any) -> bool:
    if alternative is None:
        return value is None
    if isinstance(alternative, (Interval, Options)):
        return alternative.accepts(value)
    if alternative == "boolean":
        return isinstance(value, bool)
    if alternative == "random_state":
        return value is None or Interval(int, 0, MAX_SEED).accepts(value)
    if alternative == "string":
        return isinstance(value, str) and bool(value)
    if isinstance(alternative, type):
        return isinstance(value, alternative) and not (alternative is not bool and isinstance(value, bool))
    raise TypeError(f"unknown constraint {alternative!r}")


def _describe(alternative: Any) -> str:
    if alternative is None:
        return "None"
    if isinstance(alternative, (Interval, Options)):
        return alternative.describe()
    return {
        "boolean": "true or false",
        "random_state": f"an integer seed in [0, {MAX_SEED}] (or None)",
        "string": "a non-empty string",
    }.get(alternative, f"a {getattr(alternative, '__name__', alternative)}")


def describe_constraints(constraints: Sequence[Any]) -> str:
    """What a value satisfying any of ``constraints`` looks like, in words (for messages and help)."""
    return " or ".join(dict.fromkeys(_describe(c) for c in constraints))


def check_parameter(value: Any, name: str, constraints: Sequence[Any]) -> Any:
    """``value`` when it satisfies one of ``constraints``, else :class:`~probekit.errors.InvalidParameterError`.

    Parameters
    ----------
    value : Any
    name : str
        The parameter as the user wrote it (a keyword argument, ``--max-length``, ``[finetune] epochs``).
    constraints : sequence
        The declared alternatives (see the module docstring).

    Returns
    -------
    Any
        ``value``, unchanged.
    """
    if any(_accepts(c, value) for c in constraints):
        return value
    raise InvalidParameterError(name, value, describe_constraints(constraints))


def validate_parameters(
    values: Mapping[str, Any],
    constraints: Mapping[str, Sequence[Any]],
    *,
    names: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Check every value that has a declared constraint; parameters without one pass unchecked.

    Parameters
    ----------
    values : mapping
        Parameter name -> value (``estimator.get_params()``, a config table, parsed options).
    constraints : mapping
        Parameter name -> alternatives (a class's ``_parameter_constraints``).
    names : mapping, optional
        Parameter name -> how the user wrote it (``{"max_length": "--max-length"}``), for messages.

    Returns
    -------
    dict
        ``values`` as a dict, unchanged.
    """
    names = names or {}
    for name, value in values.items():
        if name in constraints:
            check_parameter(value, names.get(name, name), constraints[name])
    return dict(values)


def declared_constraints(owner: Any) -> dict[str, list[Any]]:
    """The ``_parameter_constraints`` of a class (merged along its bases) or of a function."""
    merged: dict[str, list[Any]] = {}
    chain = reversed(owner.__mro__) if isinstance(owner, type) else [owner]
    for cls in chain:
        merged.update(getattr(cls, "_parameter_constraints", None) or {})
    return merged


def declared_defaults(owner: Any) -> dict[str, Any]:
    """Default of every keyword parameter: a dataclass's fields, a class's ``__init__`` or a function's."""
    if dataclasses.is_dataclass(owner):
        return {f.name: (f.default if f.default is not dataclasses.MISSING else f.default_factory())
                for f in dataclasses.fields(owner)
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}
    target = owner.__init__ if isinstance(owner, type) else owner
    return {name: p.default for name, p in inspect.signature(target).parameters.items()
            if p.default is not inspect.Parameter.empty}


def parse_declared(owner: Any, parameter: str, option: str) -> Callable[[str], Any]:
    """An argparse ``type=`` for ``parameter`` of ``owner``: parses the text and checks the declaration.

    The error (an ``argparse.ArgumentTypeError``, which argparse prints as a usage error with exit
    code 2) names ``option`` and what would be valid.
    """
    import argparse

    constraints = declared_constraints(owner)[parameter]

    def parse(text: str) -> Any:
        if None in constraints and text.strip().lower() in ("none", ""):
            return None
        for alternative in constraints:
            parser = getattr(alternative, "parse", None) or _TEXT_PARSERS.get(alternative) if alternative is not None else None
            if parser is None:
                continue
            try:
                value = parser(text)
            except (TypeError, ValueError, OverflowError):
                continue
            if _accepts(alternative, value):
                return value
        raise argparse.ArgumentTypeError(f"invalid {option}={text!r}; expected {describe_constraints(constraints)}")

    parse.__name__ = option  # argparse names the type in its fallback messages
    return parse
