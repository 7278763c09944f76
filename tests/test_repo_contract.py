"""The README's copy-paste commands and CI must not drift apart."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_ci_runs_exactly_the_readme_test_command():
    readme_commands = _bash_blocks((ROOT / "README.md").read_text())[:2]
    ci_lines = [
        line.strip()
        for line in (ROOT / ".ci/run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    test_command = readme_commands[1]
    assert "pytest" in test_command
    assert test_command in ci_lines


def test_readme_quickstart_is_near_the_top():
    text = (ROOT / "README.md").read_text()
    first_two = _bash_blocks(text)[:2]
    assert len(first_two) == 2
    assert text.index(first_two[1]) < 2500, "the two quickstart commands must be near the top"


def _github_anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped (hyphens and
    underscores kept), spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(markdown: str) -> set[str]:
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    return {_github_anchor(h) for h in re.findall(r"^#{1,6} (.+)$", prose, re.M)}


def test_readme_links_resolve():
    """Every in-page link names a heading; every relative file link names a file, and a
    link into another markdown file (docs/*.md) names one of its headings. Links between
    docs pages are checked by the strict site build (tests/test_docs.py)."""
    text = (ROOT / "README.md").read_text()
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    targets = re.findall(r"\]\(([^)\s]+)\)", prose)
    assert targets, "no links found"
    assert any(t.startswith("docs/") for t in targets), "README links into docs/"
    for target in targets:
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        if path:
            assert (ROOT / path).exists(), f"README links to missing file {path}"
        if anchor:
            page = (ROOT / path) if path else ROOT / "README.md"
            assert anchor in _anchors(page.read_text()), f"README links to missing {target}"
