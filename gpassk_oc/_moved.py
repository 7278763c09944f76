"""Old import paths (releases 0.1.0 and 0.2.0) that forward to where their names live now.

A module that moved keeps a tiny shim at its old path::

    __getattr__, __dir__ = forward(__name__, "gpassk_oc.core.metrics.gpass_exact")

Every name read through the shim (``from gpassk_oc.metrics import g_pass_at_k``, or
``gpassk_oc.metrics.g_pass_at_k``) is the very object of the new module, and each read
emits a :class:`DeprecationWarning` naming the new path, at the caller's line (so
Python's default filters show it in ``__main__`` and pytest shows it in tests).
CHANGELOG.md lists the moves; the shims go in a later major release.
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


#: what the old metric_names paths (0.1.0's and 0.2.0's) forward to the metric registry:
#: the spec and its parsers moved on there from metric_keys
METRIC_NAMES_ELSEWHERE = dict.fromkeys(
    (
        "KINDS",
        "MetricSpec",
        "headline_metrics",
        "parse_metric",
        "parse_result_key",
        "report_metrics",
    ),
    "gpassk_oc.core.metrics.registry",
)
