"""Render config data to deterministic Python text (the last step of the generator).

Config data is plain dicts/lists/scalars plus :class:`Ref` for classes referenced by
import. Output: header comments, sorted ``from module import Name`` lines, then one
``name = value`` block per variable in a black-like layout (inline when it fits in 88
columns, else one item per line with a trailing comma). No timestamps, fixed key order,
floats as their shortest ``repr`` — the same data always gives the same bytes. The last
line is ``# gpassk-oc sha256:<hash of the rest>`` (:func:`gpassk_oc.ownership.stamp`).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpassk_oc.configgen.schema import TemplateError
from gpassk_oc.ownership import stamp

__all__ = ["Ref", "render_file", "plain"]

_WIDTH = 88


@dataclass(frozen=True)
class Ref:
    """A class referenced by import: rendered as its bare name plus an import line, which
    OpenCompass's lazy config parser turns into the dotted string ``module.name``."""

    module: str
    name: str

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"


def plain(value: Any) -> Any:
    """The data as OpenCompass sees it after parsing the file: every Ref a dotted string."""
    if isinstance(value, Ref):
        return value.dotted
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _inline(value: Any) -> str:
    if isinstance(value, Ref):
        return value.name
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TemplateError(f"value {value!r} cannot be written in a config")
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, Mapping):
        if all(isinstance(k, str) and k.isidentifier() for k in value):
            return "dict(" + ", ".join(f"{k}={_inline(v)}" for k, v in value.items()) + ")"
        return "{" + ", ".join(f"{_inline(k)}: {_inline(v)}" for k, v in value.items()) + "}"
    raise TemplateError(
        f"value of type {type(value).__name__} cannot be written in a "
        "config (only numbers, strings, lists and dicts survive the dump)"
    )


def _format(value: Any, indent: int, prefix_len: int) -> str:
    text = _inline(value)
    if (
        indent + prefix_len + len(text) + 1 <= _WIDTH
        or not isinstance(value, (list, tuple, Mapping))
        or not value
    ):
        return text
    pad = " " * (indent + 4)
    if isinstance(value, Mapping):
        kwargs = all(isinstance(k, str) and k.isidentifier() for k in value)
        lines = []
        for key, item in value.items():
            head = f"{key}=" if kwargs else f"{_inline(key)}: "
            lines.append(f"{pad}{head}{_format(item, indent + 4, len(head))},")
        opener, closer = ("dict(", ")") if kwargs else ("{", "}")
    else:
        lines = [f"{pad}{_format(item, indent + 4, 0)}," for item in value]
        opener, closer = "[", "]"
    return opener + "\n" + "\n".join(lines) + "\n" + " " * indent + closer


def _dedupe_refs(value: Any, chosen: dict[str, Ref]) -> Any:
    """Two classes with the same bare name cannot both be imported: the first one is, the
    others are written as dotted strings (OpenCompass accepts both)."""
    if isinstance(value, Ref):
        first = chosen.setdefault(value.name, value)
        return value if first == value else value.dotted
    if isinstance(value, Mapping):
        return {k: _dedupe_refs(v, chosen) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_dedupe_refs(v, chosen) for v in value]
    return value


def _wrap(line: str) -> list[str]:
    """A header line as comment lines of at most 88 columns; list items keep their indent."""
    indent = " " * (len(line) - len(line.lstrip(" -")))
    return textwrap.wrap(
        line, _WIDTH - 2, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    ) or [""]


def render_file(header: Sequence[str], variables: Mapping[str, Any]) -> str:
    """Header comments, sorted imports, then ``name = value`` blocks in the given order."""
    chosen: dict[str, Ref] = {}
    body = {name: _dedupe_refs(value, chosen) for name, value in variables.items()}
    imports = sorted(f"from {ref.module} import {ref.name}" for ref in chosen.values())
    comments = [f"# {part}" for line in header for part in _wrap(line)]
    parts = ["\n".join(comments), "\n".join(imports)]
    parts += [f"{name} = {_format(value, 0, len(name) + 3)}" for name, value in body.items()]
    # last line: the hash of the rest, so `dump` knows a file is its own and unedited
    return stamp("\n\n".join(part for part in parts if part) + "\n")
