"""Never touch what we did not write: the one rule every writing command follows.

A file may be (over)written by a ``gpassk-oc`` command only when

* it does not exist, or
* gpassk-oc wrote it and nobody changed it since, or
* the user passed ``--force``.

"gpassk-oc wrote it, unchanged" is decided from the file alone where the format allows a
comment: a generated config ends with ``# gpassk-oc sha256:<hex>``, the SHA-256 of the
rest of the file (:func:`stamp`), so the usual edit-template-then-dump loop rewrites its
own files, and a hand edit (or a file written by hand or by release 0.1.0, which has no
such line) is left alone. Other outputs (markdown, CSV, JSON, figures) cannot carry a
comment in every format, so the hash of what was written goes into a manifest beside
them, ``.gpassk-oc-written.json`` (file name -> SHA-256, plus a :data:`MANIFEST_KEY` line
saying who wrote it). The manifest follows the rule too: a file of that name that is not
a gpassk-oc manifest is refused like any other, never replaced.

A refusal is raised before anything is written (:class:`Refused`, one line per file) so a
command either writes all its files or none. Standard library only: every layer may use it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = [
    "MANIFEST",
    "MANIFEST_KEY",
    "manifest_problem",
    "STAMP_PREFIX",
    "Refused",
    "digest",
    "stamp",
    "is_stamped",
    "why_protected",
    "check_targets",
    "write_files",
]

MANIFEST = ".gpassk-oc-written.json"
#: The manifest's own entry: who wrote it (file names never start with "_gpassk-oc").
MANIFEST_KEY = "_gpassk-oc"
MANIFEST_NOTE = "files written by gpassk-oc (name -> sha256); do not edit"
STAMP_PREFIX = "# gpassk-oc sha256:"


class Refused(Exception):
    """Files a command would overwrite but must not; :attr:`lines` has one line per file."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("; ".join(lines))
        self.lines = lines


def digest(data: bytes) -> str:
    """SHA-256 of *data* as hex."""
    return hashlib.sha256(data).hexdigest()


def stamp(text: str) -> str:
    """*text* (ending in a newline) plus a last line carrying the SHA-256 of *text*."""
    return f"{text}{STAMP_PREFIX}{digest(text.encode('utf-8'))}\n"


def is_stamped(data: bytes) -> bool:
    """True when the last line of *data* is a stamp matching everything before it
    (the file is unchanged since gpassk-oc wrote it)."""
    if not data.endswith(b"\n"):
        return False
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1
    return data[cut:-1] == (STAMP_PREFIX + digest(data[:cut])).encode()


def _manifest(directory: Path) -> dict[str, str]:
    try:
        data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # absent or unreadable: nothing there counts as ours
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str) and k != MANIFEST_KEY}


def _is_sha256(value: object) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def manifest_problem(directory: Path) -> str | None:
    """None if the manifest of *directory* is absent or gpassk-oc's (its :data:`MANIFEST_KEY`
    entry, or, as release 0.1.0 wrote it, only ``name -> sha256`` entries); else why it is
    not ours to rewrite."""
    path = directory / MANIFEST
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        return "exists and is not a regular file"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get(MANIFEST_KEY) == MANIFEST_NOTE:
        return None
    if isinstance(data, dict) and data and all(_is_sha256(v) for v in data.values()):
        return None  # an older manifest: entries only
    return "not written by gpassk-oc (it keeps its list of written files under this name)"


def why_protected(path: Path) -> str | None:
    """None if *path* may be written; else why not (it exists and is not ours unchanged)."""
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        return "exists and is not a regular file"
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if is_stamped(data):
        return None
    if STAMP_PREFIX.encode() in data:
        return "edited since gpassk-oc wrote it (its sha256 line no longer matches)"
    recorded = _manifest(path.parent).get(path.name)
    if recorded is None:
        return "not written by gpassk-oc"
    if recorded != digest(data):
        return "edited since gpassk-oc wrote it"
    return None


def check_targets(paths: Iterable[Path], force: bool, what: str = "") -> None:
    """Raise :class:`Refused` naming every path of *paths* that must be left alone (none
    with *force*). *what* (e.g. ``--out``) prefixes each line."""
    if force:
        return
    lead = f"{what} " if what else ""
    lines = [
        f"{lead}{path}: {why}; left alone (--force overwrites it)"
        for path in paths
        if (why := why_protected(Path(path))) is not None
    ]
    if lines:
        raise Refused(lines)


def write_files(files: Mapping[Path, bytes], force: bool = False, what: str = "") -> list[Path]:
    """Write *files* (path -> content) after :func:`check_targets`: all or none refused.
    Each file is written to a temporary name and renamed (never half-written); the hash of
    every unstamped file goes into its folder's manifest."""
    reserved = [p for p in files if Path(p).name == MANIFEST]
    if reserved:  # the manifest update would replace it at once
        raise Refused(
            [
                f"{what + ' ' if what else ''}{reserved[0]}: {MANIFEST} is the name of "
                "gpassk-oc's list of written files; choose another name"
            ]
        )
    check_targets(files, force, what)
    manifests = {Path(p).parent / MANIFEST for p, data in files.items() if not is_stamped(data)}
    lead = f"{what} " if what else ""
    refused = [
        f"{lead}{path}: {why}; left alone (--force overwrites it)"
        for path in sorted(manifests)
        if not force and (why := manifest_problem(path.parent)) is not None
    ]
    if refused:
        raise Refused(refused)
    by_dir: dict[Path, dict[str, str]] = {}
    for path, data in files.items():
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if not is_stamped(data):
            by_dir.setdefault(path.parent, {})[path.name] = digest(data)
    for directory, entries in by_dir.items():
        manifest = {
            MANIFEST_KEY: MANIFEST_NOTE,
            **dict(sorted({**_manifest(directory), **entries}.items())),
        }
        text = json.dumps(manifest, indent=1) + "\n"
        (directory / MANIFEST).write_text(text, encoding="utf-8")
    return [Path(p) for p in files]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
