"""Reading the shell blocks of README.md and docs/*.md (shared by the docs tests).

A ```` ```bash ```` block is runnable unless the line right before it is
``<!-- not-run: <reason> -->``; ```` ```text ```` blocks (synopses, logs) are never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NOT_RUN = re.compile(r"^<!-- not-run: (?P<reason>.*\S) -->$")
_FENCE = re.compile(r"^```(?P<lang>\S*)\s*$")


@dataclass(frozen=True)
class Block:
    page: str  # repository-relative path
    line: int  # 1-based line of the opening fence
    text: str
    not_run: str | None  # the reason, when marked

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def bash_blocks(path: Path) -> list[Block]:
    """Every ```bash block of a markdown file, with its not-run reason if marked."""
    lines = path.read_text(encoding="utf-8").splitlines()
    page = path.relative_to(ROOT).as_posix()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"{page}:{i + 1}: code block is never closed")
        if fence["lang"] == "bash":
            marker = NOT_RUN.match(lines[i - 1].strip()) if i else None
            text = "\n".join(lines[i + 1 : end])
            blocks.append(Block(page, i + 1, text, marker["reason"] if marker else None))
        i = end + 1
    return blocks


def nav_pages(root: Path = ROOT) -> list[str]:
    """docs/ pages in mkdocs.yml's nav order."""
    config = yaml.safe_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    pages: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            pages.append(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)

    walk(config["nav"])
    return pages


def pages_in_run_order(root: Path = ROOT) -> list[str]:
    """README.md first (its Quickstart runs the demo the docs pages read), then the docs
    pages in nav order, then any docs page not (yet) in the nav, by name."""
    nav = [f"docs/{p}" for p in nav_pages(root)]
    rest = sorted(
        p.relative_to(root).as_posix()
        for p in (root / "docs").glob("*.md")
        if p.relative_to(root).as_posix() not in nav
    )
    return ["README.md", *nav, *rest]
