"""The README's copy-paste commands and CI must not drift apart."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_ci_runs_exactly_the_readme_test_command():
    readme_commands = _bash_blocks((ROOT / "README.md").read_text())[:2]
    ci_lines = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    test_command = readme_commands[1]
    assert "pytest" in test_command
    assert test_command in ci_lines


def test_readme_quickstart_is_near_the_top():
    text = (ROOT / "README.md").read_text()
    first_two = _bash_blocks(text)[:2]
    assert len(first_two) == 2
    assert text.index(first_two[1]) < 2500, "the two quickstart commands must be near the top"
