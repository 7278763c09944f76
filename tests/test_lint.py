"""The habits of the field, enforced: ruff (lint and format) and mypy over the package,
configured in pyproject.toml, with zero findings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / argv[0]), *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "argv",
    [("ruff", "check", "."), ("ruff", "format", "--check", ".")],
    ids=["ruff-check", "ruff-format"],
)
def test_ruff(argv):
    done = run(*argv)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_mypy():
    done = run("mypy")  # files and settings from [tool.mypy] in pyproject.toml
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_no_file_over_500_lines():
    """A module has one job; past 500 lines it has two (package, tests and benchmarks)."""
    files = [p for folder in ("gpassk_oc", "tests", "bench") for p in (ROOT / folder).rglob("*.py")]
    long = {
        str(p.relative_to(ROOT)): n
        for p in files
        if "fixtures" not in p.parts and (n := len(p.read_text().splitlines())) > 500
    }
    assert long == {}


def test_no_two_modules_share_a_name():
    """Names say what a module is for, so no two modules of the package share one
    (packages' ``__init__.py`` aside). Old import paths are entries of the one alias table
    (gpassk_oc/_aliases.py), never files."""
    homes: dict[str, list[str]] = {}
    for p in sorted((ROOT / "gpassk_oc").rglob("*.py")):
        if p.name == "__init__.py":
            continue
        homes.setdefault(p.name, []).append(str(p.relative_to(ROOT)))
    assert {name: paths for name, paths in homes.items() if len(paths) > 1} == {}
