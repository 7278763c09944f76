"""Serves the alias table (``gpassk_oc/_aliases.py``) to Python's import system.

A meta-path finder ahead of the file finders: ``import gpassk_oc.core.stats``,
``from gpassk_oc.metrics import g_pass_at_k`` and ``importlib.import_module`` (what
OpenCompass's registry does with a config's dotted path) all get a module object built
from the table. It holds no names itself: each name read goes through its ``__getattr__``
(PEP 562), gives the very object of the new module and warns, at the caller's line, with
the new path and the release that removes the old one. A path not in the table is left to
the ordinary finders (a removed path: ``ModuleNotFoundError``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Sequence
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_loader
from types import ModuleType

from gpassk_oc._aliases import ALIASES, Alias


def _reader(old: str, alias: Alias) -> Callable[[str], object]:
    """The old module's ``__getattr__``: the new module's object, with the warning."""

    def __getattr__(name: str) -> object:
        home = alias.elsewhere.get(name, alias.new)
        if name.startswith("__") or home is None:  # import machinery probes, package-only
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)  # AttributeError: no such name
        warnings.warn(
            f"{old} is deprecated since gpassk_oc {alias.since} and is removed in "
            f"{alias.removal}: import {name} from {home}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__


def _lister(alias: Alias) -> Callable[[], list[str]]:
    def __dir__() -> list[str]:
        names = dir(import_module(alias.new)) if alias.new else []
        return sorted({*names, *alias.elsewhere})

    return __dir__


class AliasFinder(MetaPathFinder, Loader):
    """Finds and loads the old paths of the alias table (and nothing else)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        alias = ALIASES.get(fullname)
        if alias is None:
            return None
        # an old package (new is None) may hold old modules: give it an empty search path
        return spec_from_loader(fullname, self, is_package=alias.new is None)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: ModuleType) -> None:
        alias = ALIASES[module.__name__]
        target = alias.new or "the modules below it"
        module.__doc__ = f"Deprecated since {alias.since}: moved to {target} (an alias)."
        module.__getattr__ = _reader(module.__name__, alias)  # type: ignore[method-assign]
        module.__dir__ = _lister(alias)  # type: ignore[method-assign]


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once per process)."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())
