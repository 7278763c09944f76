"""The importers ``rescore`` knows: registering one is one line in :data:`MODULES`.

Each module sets ``IMPORTER`` (:class:`gpassk_oc.rescore.importer.Importer`); it is
loaded on first use, so a tool's reader costs nothing when its files are not there.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

from gpassk_oc.rescore.importer import Importer
from gpassk_oc.rescore.source import RescoreError

__all__ = ["MODULES", "detect", "importer_names", "importers"]

#: one line per importer (its ``IMPORTER`` is the tool's name, files and reader)
MODULES = (
    "gpassk_oc.rescore.importers.opencompass",
    "gpassk_oc.rescore.importers.lm_eval",
    "gpassk_oc.rescore.importers.evalscope",
    "gpassk_oc.rescore.importers.lighteval",
)


@cache
def importers() -> dict[str, Importer]:
    """Every registered importer by name, in :data:`MODULES` order."""
    loaded = [importlib.import_module(m).IMPORTER for m in MODULES]
    return {imp.name: imp for imp in loaded}


def importer_names() -> tuple[str, ...]:
    return tuple(importers())


def detect(folder: Path, name: str | None = None) -> Importer:
    """The importer of the tool whose files are in *folder* (or the one named by
    ``--from``); RescoreError when none, or when two tools' files are mixed."""
    known = importers()
    if name is not None:
        if name not in known:
            raise RescoreError(f"--from {name}: unknown tool; known: {', '.join(known)}")
        return known[name]
    found = {imp.name: files for imp in known.values() if (files := imp.recognise(folder))}
    if len(found) > 1:
        (a, fa), (b, fb) = list(found.items())[:2]
        raise RescoreError(
            f"{folder}: files of two tools mixed ({a}: {fa[0]}; {b}: {fb[0]}); rescore one "
            "tool's folder at a time"
        )
    if not found:
        raise RescoreError(
            f"{folder}: not an OpenCompass work dir, nor the files of "
            f"{', '.join(list(known)[1:])} (--from NAME picks the tool)"
        )
    return known[next(iter(found))]
