"""Lazy package faces (PEP 562): a public name is imported from its module on first use.

``probekit`` and ``debias`` use it so that ``import probekit.errors`` or building the CLI's parsers
loads no torch; each face lists ``name -> module`` once and gets its ``__getattr__`` and
``__dir__`` from :func:`lazy_exports`.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, str], namespace: dict[str, Any], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a lazy package face.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (for the error message).
    table : mapping of str to str
        Public name -> the module that defines it.
    namespace : dict
        The package's ``globals()``: a name, once imported, is stored there so later look-ups
        skip ``__getattr__``.
    public : list of str
        The package's ``__all__``.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
