"""Command-line options that take their check, default and help from the library's declaration.

An option added with :func:`add_declared` belongs to one parameter of one estimator or
configuration class (its ``_parameter_constraints`` and its signature default). The parser keeps
the text as typed; when the command's arguments have been parsed, :class:`ProbekitParser` calls
:func:`resolve_declared`, which imports the class, parses and checks each given value against the
declaration (an error names the option as typed) and fills in the declared default of each option
not given. Commands without declared options import nothing. Help texts are rendered from the declaration only when a command's help is
shown, so ``probekit --help`` imports no model code.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any, Sequence

from probekit.errors import InvalidParameterError

__all__ = ["ProbekitParser", "add_declared", "resolve_declared", "declared_options", "owner_class"]

_REGISTRY_KEY = "_declared_options"


def _default_of(cls: Any, parameter: str) -> Any:
    """The library default of ``parameter``: the owner's signature (``__init__``), else the signature of
    its fitting method (``fit_from_encoder``, ``fit``), whose keywords a class declares too."""
    from probekit.utils import declared_defaults

    defaults = declared_defaults(cls)
    for method in ("fit_from_encoder", "fit"):
        if parameter in defaults or not isinstance(cls, type) or not hasattr(cls, method):
            break
        defaults = {**declared_defaults(getattr(cls, method)), **defaults}
    return defaults.get(parameter)


def owner_class(owner: str) -> Any:
    """The class or function named ``"module:attribute"`` (imported on first use).

    Where the package's name has been replaced by a stand-in without a declaration (a test's fake
    suite, a wrapper), the declaring object is taken from the package's submodule that defines it.
    """
    import sys

    module, _, attribute = owner.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    if getattr(found, "_parameter_constraints", None) is not None:
        return found
    for name, submodule in list(sys.modules.items()):
        candidate = getattr(submodule, attribute, None) if name.startswith(module + ".") else None
        if getattr(candidate, "_parameter_constraints", None) is not None:
            return candidate
    return found


class _DeclaredHelp(str):
    """A help string completed from the declaration when argparse formats it (``help % params``)."""

    def __new__(cls, text: str, owner: str, parameter: str, default: Any) -> "_DeclaredHelp":
        instance = super().__new__(cls, text)
        instance.owner, instance.parameter, instance.default = owner, parameter, default
        return instance

    def __mod__(self, params: Any) -> str:
        from probekit.utils import declared_constraints, describe_constraints

        cls = owner_class(self.owner)
        default = self.default if self.default is not _LIBRARY else _default_of(cls, self.parameter)
        valid = describe_constraints(declared_constraints(cls)[self.parameter])
        return f"{str(self)} ({valid}; default {default})"


_LIBRARY = object()  # the option's default is the library's own


def add_declared(
    group: Any,
    option: str,
    owner: str,
    parameter: str,
    help: str,
    *,
    default: Any = _LIBRARY,
    none_text: Sequence[str] = ("none",),
    metavar: str | None = None,
    allocation: float | None = None,
) -> None:
    """Add ``option`` for ``parameter`` of ``owner`` (``"module:Class"``) to an argparse group.

    Parameters
    ----------
    group : argparse parser or argument group
    option : str
        The option as typed, e.g. ``"--max-length"``.
    owner : str
        ``"module:attribute"`` of the class (or function) that declares the parameter.
    parameter : str
        The parameter's name in the declaration.
    help : str
        What the option does; the valid values and the default are appended from the declaration.
    default : Any, optional
        A default of this command that differs from the library's (say why in ``help``).
    none_text : sequence of str
        Texts that mean ``None`` when the declaration allows it (``("0",)`` for "0: all").
    metavar : str, optional
    allocation : float, optional
        Bytes one unit of the value needs (resamples, permutations, examples): the value is checked
        against the available memory before anything runs (:func:`probekit.utils.check_allocation`).
    """
    dest = option.lstrip("-").replace("-", "_")
    group.add_argument(option, dest=dest, default=None, metavar=metavar or dest.upper(),
                       help=_DeclaredHelp(help, owner, parameter, default))
    parser = getattr(group, "_container", group)  # argument groups add to their parser's defaults
    registry = dict(parser.get_default(_REGISTRY_KEY) or {})
    registry[dest] = (option, owner, parameter, default, tuple(none_text), allocation)
    parser.set_defaults(**{_REGISTRY_KEY: registry})


def declared_options(parser: argparse.ArgumentParser) -> dict[str, tuple[str, str, str, tuple[str, ...]]]:
    """``dest -> (option, owner, parameter, texts meaning None)`` of the options a (sub)command's parser declares."""
    registry = parser.get_default(_REGISTRY_KEY) or {}
    return {dest: (option, owner, parameter, none_text) for dest, (option, owner, parameter, _, none_text, _) in registry.items()}


def _parse(text: str, option: str, constraints: list[Any], none_text: Sequence[str]) -> Any:
    from probekit.utils import check_parameter, describe_constraints

    if None in constraints and text.strip().lower() in {t.lower() for t in none_text}:
        return None
    for alternative in constraints:
        parse = getattr(alternative, "parse", None) or ({"random_state": int, "string": str}.get(alternative)
                                                         if isinstance(alternative, str) else None)
        if parse is None:
            continue
        try:
            return check_parameter(parse(text), option, [alternative])
        except (TypeError, ValueError, OverflowError):
            continue
    valid = describe_constraints(constraints)
    if None in constraints:
        valid += f" (type {' or '.join(repr(t) for t in none_text)} for None)"
    raise InvalidParameterError(option, text, valid)


def resolve_declared(args: argparse.Namespace) -> argparse.Namespace:
    """Parse and check every declared option of ``args`` in place; fill in the declared defaults.

    Raises
    ------
    InvalidParameterError
        A value outside its declaration; the message names the option as typed.
    """
    from probekit.utils import check_allocation, check_parameter, declared_constraints

    registry = getattr(args, _REGISTRY_KEY, None) or {}
    for dest, (option, owner, parameter, default, none_text, allocation) in registry.items():
        cls = owner_class(owner)
        constraints = declared_constraints(cls)[parameter]
        text = getattr(args, dest)
        if text is None:
            value = _default_of(cls, parameter) if default is _LIBRARY else default
            setattr(args, dest, check_parameter(value, option, constraints))
        elif isinstance(text, str):
            setattr(args, dest, _parse(text, option, constraints, none_text))
        if allocation is not None and getattr(args, dest) is not None:
            check_allocation(getattr(args, dest), allocation, option)
    return args


class ProbekitParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose parsed namespace holds the declared options checked and defaulted.

    Resolution happens in the parser that owns the options (a subcommand's), once; an invalid value
    raises :class:`~probekit.errors.InvalidParameterError` naming the option, carrying the
    subcommand in ``exc.command`` so that the entry point can print it on one line.
    """

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:  # noqa: D102 - argparse's
        parsed, extras = super().parse_known_args(args, namespace)
        if getattr(parsed, _REGISTRY_KEY, None):
            try:
                resolve_declared(parsed)
            except InvalidParameterError as exc:
                exc.command = self.prog.split()[1] if len(self.prog.split()) > 1 else None
                raise
            delattr(parsed, _REGISTRY_KEY)  # resolved: the enclosing parser must not resolve again
        return parsed, extras
