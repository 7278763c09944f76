"""Make plugin import problems visible inside OpenCompass task subprocesses.

A task child resolves ``type='gpassk_oc.evaluators.GPassKEvaluator'`` through mmengine's
``Registry.get``, whose import fallback (``get_object_from_string``) swallows
``ImportError`` and returns None; the user then only sees "... is not in the
icl_evaluators registry". Two hooks fix that:

* :func:`guarded_import` re-raises an ImportError met while importing an adapter as
  :class:`PluginImportError` (a RuntimeError, which mmengine does not swallow), with the
  original error text and the interpreter that failed; mmengine chains it into its own
  "Failed to get ..." error, so the task log shows the real cause;
* :func:`missing_name_hook` gives an adapter module a ``__getattr__`` that logs which
  names exist when a config asks for one that does not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

from gpassk_oc.log import logger


class PluginImportError(RuntimeError):
    """An adapter module of gpassk_oc could not import one of its dependencies."""


def guarded_import(module: str, exc: ImportError) -> PluginImportError:
    """The error to raise (``from exc``) when *module* fails to import a dependency."""
    message = (
        f"gpassk_oc: importing {module} failed with {type(exc).__name__}: {exc} "
        f"(python: {sys.executable}); fix this import error — OpenCompass would "
        "otherwise only report the class as 'not in the registry'"
    )
    logger.error(message)  # loguru's stderr sink: the task's .out log captures it
    return PluginImportError(message)


def missing_name_hook(module: str, public: Iterable[str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that reports unknown public names before failing."""
    names = sorted(public)

    def __getattr__(name: str) -> object:
        if not name.startswith("_") and name[:1].isupper():
            message = f"gpassk_oc: {module} has no {name!r}; it provides: {', '.join(names)}"
            logger.error(message)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
