"""Parsing another tool's JSON fast: orjson (a C parser, several times faster on the
hundreds of MB a grid of runs writes), and the standard library for what orjson refuses.

orjson rejects some text :func:`json.loads` accepts (NaN and Infinity, integers beyond
64 bits, lone surrogates); for those, and for a file that is really broken, the standard
parser runs again, so every input parses to the same value as before and every error is
the standard library's (its message, line and column)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads"]

try:
    import orjson

    _FAST_ERROR: type[Exception] = orjson.JSONDecodeError
    _fast_loads = orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib works too
    _FAST_ERROR, _fast_loads = ValueError, json.loads


def loads(data: bytes | str) -> Any:
    """The JSON value of *data*, exactly as :func:`json.loads` reads it."""
    try:
        return _fast_loads(data)
    except _FAST_ERROR:
        return json.loads(data)
