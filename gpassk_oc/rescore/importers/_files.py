"""Reading another tool's files: JSON Lines and JSON, every problem one line naming the
file (and line) — a truncated line, a record that is not an object, a missing field."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gpassk_oc.rescore.json_text import loads
from gpassk_oc.rescore.source import RescoreError

__all__ = ["field_of", "read_json", "records"]


def records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, record)`` for every non-blank line of a JSONL file; *where* is
    ``file:line``. A line that is not a JSON object (e.g. cut short) is a RescoreError."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise RescoreError(f"{path}: cannot read ({exc.strerror})") from None
    prefix = f"{path}:"
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = prefix + str(number)
            try:
                record = loads(line)
            except ValueError as exc:
                raise RescoreError(
                    f"{where}: not a JSON object (truncated or corrupt line: {exc})"
                ) from None
            if not isinstance(record, dict):
                raise RescoreError(f"{where}: not a JSON object")
            yield where, record


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object file; RescoreError naming it when unreadable or not an object."""
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RescoreError(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, dict):
        raise RescoreError(f"{path}: not a JSON object")
    return data


def field_of(record: Mapping[str, Any], key: str, where: str, tool: str) -> Any:
    """``record[key]``, or a RescoreError saying the tool's format lacks it (another
    version of the tool, or not its file)."""
    if key not in record:
        raise RescoreError(
            f"{where}: no {key!r} field: not the {tool} format this reads (another version?)"
        )
    return record[key]
