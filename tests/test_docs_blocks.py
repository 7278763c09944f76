"""Every runnable ```bash block of README.md and docs/*.md runs as printed, from a clean
copy of the repository, so a documented command cannot rot.

The copy, and how the blocks run in it, are tests/readme_copy.py's: the README's blocks
run when it is built (once per session, for this module and tests/test_demo.py, which
checks the Quickstart demo's output); this module then runs the docs pages in it, in
order — mkdocs.yml's nav, then pages not in the nav — all in the same copy, so every page
reads the Quickstart demo's output folder: the demo runs once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import ROOT, pages_in_run_order
from readme_copy import ReadmeCopy, run_page

pytestmark = pytest.mark.e2e

# a page that runs an OpenCompass grid (safety-and-errors) beside the other worker's e2e runs
PAGE_TIMEOUT = 600


@pytest.fixture(scope="module")
def copy(readme_copy: ReadmeCopy) -> Path:
    """The clean copy after the README's blocks (the demo among them)."""
    return readme_copy.root


def untracked(copy: Path) -> list[str]:
    """What `git status` lists in the copy: files the commands wrote that .gitignore misses."""
    out = subprocess.run(
        ["git", "status", "--porcelain"], cwd=copy, capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def test_readme_blocks_run(copy):
    assert (copy / "gpassk_demo_output" / "report" / "leaderboard.md").is_file()
    assert untracked(copy) == [], "the README tour leaves files git does not ignore"


def test_demo_leaderboard_in_the_docs_is_the_demos_own_output(copy):
    """docs/generated/demo-leaderboard.md, regenerated from this run's demo, is byte for
    byte the committed file (the demo is seeded, so a run reproduces it)."""
    generated = copy / "docs" / "generated" / "demo-leaderboard.md"
    generated.unlink()
    subprocess.run(
        [sys.executable, "docs/make_demo_leaderboard.py", "gpassk_demo_output"],
        cwd=copy,
        check=True,
        capture_output=True,
    )
    committed = (ROOT / "docs" / "generated" / "demo-leaderboard.md").read_text(encoding="utf-8")
    assert generated.read_text(encoding="utf-8") == committed, (
        "the demo's leaderboard changed: run the demo, then "
        "`.venv/bin/python docs/make_demo_leaderboard.py gpassk_demo_output` and commit"
    )


@pytest.mark.parametrize("page", [p for p in pages_in_run_order() if p != "README.md"])
def test_page_blocks_run(copy, page):
    run_page(copy, page, PAGE_TIMEOUT)


def test_git_status_clean_after_every_page(copy):
    """Runs after the pages (pytest keeps file order): nothing they wrote shows in git."""
    assert untracked(copy) == [], "docs commands leave files git does not ignore"
