"""The forwarder of the shim files still at old import paths (in ``report/``,
``configgen/``, ``rescore/``): each is three lines that forward to the new module. They
move into the one alias table (``gpassk_oc/_aliases.py``) and this module goes with them.

A shim::

    __getattr__, __dir__ = forward(__name__, "gpassk_oc.report.report_command", since="0.3.0")

Every name read through it is the very object of the new module, and each read emits a
:class:`DeprecationWarning` naming the new path, at the caller's line.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from importlib import import_module


def forward(
    old: str, new: str, elsewhere: Mapping[str, str] | None = None, since: str = "0.2.0"
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` of the shim at *old* for the module now at *new*.

    *elsewhere* maps a name that moved on to another module to that module's path;
    *since* is the release that moved it (0.2.0 for 0.1.0's paths, 0.3.0 for 0.2.0's).
    """
    moved = dict(elsewhere or {})

    def __getattr__(name: str) -> object:
        if name.startswith("__"):  # import machinery probes (__path__, __all__, ...)
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        home = moved.get(name, new)
        value = getattr(import_module(home), name)  # AttributeError: no such name, as before
        warnings.warn(
            f"{old} is deprecated since gpassk_oc {since}: import {name} from {home}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    def __dir__() -> list[str]:
        return sorted({*dir(import_module(new)), *moved})

    return __getattr__, __dir__
