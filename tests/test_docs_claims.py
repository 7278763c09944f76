"""Docs print what they say: a block whose output the prose quotes is run here, fast, and
its output must contain the quoted text (the e2e block run only checks the exit status)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import offline_env
from docs_support import ROOT, bash_blocks

#: (page, a phrase of the block, the prose's quoted output). The quote is read from the
#: page itself, next to the block, so the page cannot change one without the other.
CLAIMS = [
    ("README.md", "g_pass_at_k(n=16", r"this prints `([^`]+)`"),
    ("docs/answer-classes.md", "check_answer as c", r"prints `([^`]+)`"),
]


@pytest.mark.parametrize("page, phrase, quoted", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_a_block_prints_what_the_prose_quotes(page, phrase, quoted):
    text = (ROOT / page).read_text(encoding="utf-8")
    claim = re.search(quoted, text.replace("\n", " "))
    assert claim, f"{page}: no quoted output"
    (block,) = [b for b in bash_blocks(ROOT / page) if phrase in b.text]
    command = block.text.replace(".venv/bin/python", sys.executable)
    proc = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=offline_env(), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == claim.group(1), (proc.stdout, claim.group(1))
