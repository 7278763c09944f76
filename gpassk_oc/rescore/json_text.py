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

    def loads(data: bytes | str) -> Any:
        """The JSON value of *data*, exactly as :func:`json.loads` reads it."""
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            return json.loads(data)

except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib works too

    def loads(data: bytes | str) -> Any:
        """The JSON value of *data* (:func:`json.loads`)."""
        return json.loads(data)
