"""A package's public names loaded from their modules on first use (PEP 562).

A package that re-exports its modules' names (``gpassk_oc``, ``gpassk_oc.core.answers``,
``gpassk_oc.report``) would import every one of those modules with itself; a process that
needs one of them (a ``report`` worker reading results files needs no answer checking
and no output format) pays for all. With :func:`lazy_names` the package lists each name's
module, and a name read the first time imports that module and is kept in the package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    namespace: dict[str, Any], api: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package whose ``globals()`` is
    *namespace*: a name of *api* (name -> its module) is imported on first use and kept;
    any other name is an AttributeError."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> object:
        module = api.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *api})

    return __getattr__, __dir__
