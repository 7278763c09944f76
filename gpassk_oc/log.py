"""The package's one voice: every message of gpassk_oc goes through loguru's ``logger``.

Library code (core, adapters, tools) writes ``from gpassk_oc.log import logger`` and
``logger.warning(...)`` / ``logger.info(...)``; inside OpenCompass task subprocesses
loguru's default stderr sink puts those lines in the task's log. The ``gpassk-oc`` CLI calls
:func:`use_cli_format` once, which replaces the sinks with the one-line format users see::

    error: <file or flag>: <what is wrong>
    warning: ...
    <info lines as they are>

:func:`fail` logs an error in that format and returns the CLI's exit code.
Base layer beside metrics: imports loguru only, so every module (core included) may use it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn, TextIO

from loguru import logger

__all__ = ["logger", "use_cli_format", "fail", "OneLineParser"]

_PREFIX = {"WARNING": "warning: ", "ERROR": "error: ", "CRITICAL": "error: "}


def _one_line(record: Any) -> str:
    # loguru formats the returned string again: braces in the message must not be read
    # as fields, so the message goes in through {message}, never inline
    return _PREFIX.get(record["level"].name, "") + "{message}\n"


def use_cli_format(stream: TextIO | None = None, level: str = "INFO") -> None:
    """Make every gpassk_oc message one plain line on *stream* (stderr by default)."""
    logger.remove()
    logger.add(stream or sys.stderr, format=_one_line, level=level, colorize=False)


def fail(message: str, code: int = 2) -> int:
    """Log *message* as one ``error:`` line and return *code* (the CLI's exit status)."""
    logger.opt(depth=1).error(message)
    return code


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag is one ``error:`` line and exit status 2 (no usage dump;
    ``--help`` still shows it)."""

    def error(self, message: str) -> NoReturn:
        fail(f"{self.prog}: {message}")
        raise SystemExit(2)
