"""Argument types shared by the CLIs: bounds with their reason, checked while parsing so a
bad value is one ``error:`` line (exit 2) before anything runs or is written."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

__all__ = [
    "port_number",
    "seed_number",
    "token_count_arg",
    "MAX_TOKEN_COUNT",
    "worker_count_arg",
    "MAX_WORKERS",
    "MAX_SEED",
    "path_text",
    "path_arg",
    "shell_unsafe",
    "opencompass_dir_problem",
]

#: numpy's seeds are 32-bit (``np.random.default_rng`` takes more, the legacy API does not).
MAX_SEED = 2**32 - 1


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def port_number(text: str) -> int:
    """A TCP port: 1-65535, or 0 for a free one chosen by the system."""
    value = _integer(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"{value} is not a TCP port: need 1-65535 (or 0 for a free one)"
        )
    return value


def seed_number(text: str) -> int:
    """A random seed: 0 to 2**32 - 1 (numpy's seed range)."""
    value = _integer(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{value}: need a seed in 0..{MAX_SEED}")
    return value


#: tokens at most for a reply-length flag: far above any reply length a model is given
MAX_TOKEN_COUNT = 1_000_000


def token_count_arg(text: str) -> int:
    """A number of tokens: 0 to :data:`MAX_TOKEN_COUNT`."""
    value = _integer(text)
    if not 0 <= value <= MAX_TOKEN_COUNT:
        raise argparse.ArgumentTypeError(f"{value}: need 0 to {MAX_TOKEN_COUNT:,} tokens")
    return value


#: worker processes at most: each holds its own interpreter (~100 MB)
MAX_WORKERS = 64


def worker_count_arg(text: str) -> int:
    """Worker processes: 1 (none: everything in this process) to :data:`MAX_WORKERS`."""
    value = _integer(text)
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(
            f"{value}: need 1 (no worker processes) to {MAX_WORKERS} worker processes"
        )
    return value


def path_text(text: str) -> str:
    """A file or folder name as typed: refused when empty (``''`` would silently mean
    the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty path: name a file or folder")
    return text


def path_arg(text: str) -> Path:
    """:func:`path_text` as a :class:`~pathlib.Path`."""
    return Path(path_text(text))


#: Characters a POSIX shell splits on or expands. OpenCompass starts each task with
#: ``subprocess.run(f"{python} {script} {cwd}/tmp/<id>_params.py", shell=True)``, unquoted,
#: so one of these in the interpreter's path, the installed package's path or the folder
#: OpenCompass runs in breaks every task.
_SHELL_UNSAFE = re.compile(r"[\s'\"\\$`;&|<>()*?\[\]]")


def shell_unsafe(path: str | Path) -> str | None:
    """The first character of *path* an unquoted shell command line would split on or
    expand (shown readably: 'a space'), or None."""
    found = _SHELL_UNSAFE.search(str(path))
    if found is None:
        return None
    char = found.group()
    return {" ": "a space", "\t": "a tab", "\n": "a line break"}.get(char, repr(char))


def opencompass_dir_problem(folder: Path, what: str) -> str | None:
    """Why OpenCompass cannot run its tasks in *folder* (named *what*, e.g. ``--output``),
    or from this interpreter and installation; None when it can. One line, naming the
    path and the character."""
    import importlib.util

    spec = importlib.util.find_spec("opencompass")  # finds the package, does not import it
    places = [(what, folder), ("the Python interpreter", Path(sys.executable))]
    if spec is not None and spec.origin:
        places.append(("the installed opencompass", Path(spec.origin).parent))
    for label, path in places:
        if char := shell_unsafe(path):
            return (
                f"{label} {path}: contains {char}, and OpenCompass starts its tasks with an "
                "unquoted shell command line that breaks on it; choose a path without it"
            )
    return None
