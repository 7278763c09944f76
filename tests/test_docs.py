"""The docs site builds strictly (a broken link or anchor fails), README.md stays short,
and the not-run markers of shell blocks are well-formed. The blocks themselves run in
tests/test_docs_blocks.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import NOT_RUN, ROOT, bash_blocks, nav_pages, pages_in_run_order

README_MAX_LINES = 250


def _mkdocs() -> Path:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.fail(f"mkdocs not found next to {sys.executable}: install the [test] extra")
    return mkdocs


def test_site_builds_strictly(tmp_path):
    # snippets (--8<--) resolve against the repository root, where mkdocs runs
    proc = subprocess.run(
        [str(_mkdocs()), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    problems = [line for line in proc.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert proc.returncode == 0, "\n".join(problems) or proc.stderr[-3000:]
    assert (tmp_path / "site" / "demo" / "index.html").is_file()


def test_strict_build_catches_a_broken_anchor(tmp_path):
    """The check above can fail: a copy of the docs with one bad anchor does not build."""
    docs = tmp_path / "docs"
    subprocess.run(["cp", "-r", str(ROOT / "docs"), str(docs)], check=True)
    page = docs / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[x](metrics.md#no-such-heading)\n")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    for name in ("BENCHMARKS.md",):
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"))
    proc = subprocess.run(
        [str(_mkdocs()), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    assert "no-such-heading" in proc.stderr


def test_nav_names_only_existing_pages():
    for page in nav_pages():
        assert (ROOT / "docs" / page).is_file(), f"mkdocs.yml nav names missing docs/{page}"


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES})"


@pytest.mark.parametrize("page", pages_in_run_order())
def test_not_run_markers_give_a_reason_and_precede_a_bash_block(page):
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("<!-- not-run"):
            continue  # an example marker inside a code block is text
        assert NOT_RUN.match(line.strip()), f"{page}:{i + 1}: want <!-- not-run: <reason> -->"
        following = lines[i + 1] if i + 1 < len(lines) else ""
        assert following == "```bash", f"{page}:{i + 1}: marker not right before a ```bash"
    for block in bash_blocks(ROOT / page):
        assert block.text.strip(), f"{block.where}: empty bash block"


def test_pages_that_use_the_demo_output_keep_runnable_blocks():
    """The pages whose commands read the demo's output keep runnable blocks, so the block
    test cannot pass by running nothing."""
    for page in ("README.md", "docs/demo.md", "docs/configgen.md", "docs/reports.md"):
        runnable = [b for b in bash_blocks(ROOT / page) if b.not_run is None]
        assert runnable, f"{page} has no runnable bash block"


def test_docs_show_no_fixed_slurm_ports():
    """The one-node cluster recipe picks free ports (6817/6818 may be another cluster's)."""
    text = (ROOT / "docs" / "slurm.md").read_text(encoding="utf-8")
    assert not re.search(r"\b681[78]\b", text)
    assert "SlurmctldPort=$CTLD_PORT" in text and "kill $SLURMD_PID $CTLD_PID $MUNGED_PID" in text
