"""The README's clean copy: a copy of the repository after the README's runnable blocks,
the full ``gpassk-oc demo`` of its Quickstart among them — built ONCE per test session and
shared by every xdist worker (registered by conftest as a plugin).

Two modules read it: tests/test_docs_blocks.py runs the docs pages in it, and
tests/test_demo.py checks the demo's output folder and printed lines (the demo is the
slowest command of the suite: running it a second time for test_demo cost a minute).

How the copy is made and why:

* The files ``git ls-files`` names (tracked, plus new files not ignored: a change is tested
  before it is committed) are copied into a fresh directory, which gets an empty ``git
  init`` — what a clean clone holds, as far as the commands can tell.
* ``.venv`` in the copy is a symlink to the venv running the tests (``sys.prefix``), so
  ``.venv/bin/...`` commands run as printed without a reinstall; ``PYTHONPATH`` names the
  copy, so its own ``gpassk_oc`` is the one imported, and the venv's ``bin`` is taken off
  ``PATH``, so a command that works only inside an activated venv fails here.
* The two Quickstart commands install: the test-suite one is CI's own command
  (``.ci/run`` runs it verbatim; ``test_repo_contract.py`` keeps them equal), so it is
  not run again from inside the suite; of the demo one, the install part is what this venv
  already is (the same pip commands without the ``[test]`` extra, checked below), so only
  its last part, ``.venv/bin/gpassk-oc demo``, runs — in full.
* The environment has no ``OPENAI_API_KEY`` and no proxies: a block that needs a key must
  export it itself, as a reader's fresh shell would.

A page's blocks run in one ``bash`` (so an ``export`` carries to the page's later blocks)
under ``set -eo pipefail``, which stops the page at the first failing command — bash's
rule excepts a command that fails before the last ``&&`` of a list, so a block keeps such
a list last or checks it (the Quickstart's lists are handled above). Blocks marked
``<!-- not-run: reason -->`` (GPU, cluster, real API, network) are skipped;
tests/test_docs.py checks that each marker gives a reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from docs_support import ROOT, bash_blocks
from parallel_support import built_once, fixed_port

#: The Quickstart's demo command is CI's install followed by the demo.
INSTALL = (
    "python3.11 -m venv .venv && .venv/bin/pip install -q torch==2.13.0 && "
    ".venv/bin/pip install -q -e ."
)
DEMO = ".venv/bin/gpassk-oc demo"
#: Bounds per page (seconds): the README runs the full demo (about a minute alone on
#: 2 cores, several under load); other pages run short commands.
README_TIMEOUT = 900
#: What a block prints before its output (``::block README.md:17``).
BLOCK_START = "::block "


def _repo_files() -> list[str]:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.fail(f"{ROOT} is not a git checkout (or git is missing): cannot list its files")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    return [name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


def _environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "COMPASS_DATA_CACHE",
        "VIRTUAL_ENV",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        env.pop(name, None)
    venv_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin
    )
    env.update(PYTHONPATH=str(copy), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    return env


def _script(page: str) -> tuple[str, int]:
    """The page's runnable blocks as one bash script, and how many there are."""
    parts = ["set -eo pipefail"]
    count = 0
    for block in bash_blocks(ROOT / page):
        if block.not_run is not None:
            continue
        text = block.text
        if page == "README.md" and INSTALL in text:
            assert text == f"{INSTALL} && {DEMO}", f"{block.where}: Quickstart demo command changed"
            text = DEMO
        elif page == "README.md" and "-m pytest" in text:
            continue  # CI's own command (see the module docstring)
        parts += [f"printf '\\n{BLOCK_START}%s\\n' '{block.where}'", text]
        count += 1
    return "\n".join(parts) + "\n", count


def run_page(copy: Path, page: str, timeout: int) -> str:
    """Run the page's runnable blocks in *copy*; their output (stdout and stderr), each
    block's after its ``::block PAGE:LINE`` line. A failing block fails the test."""
    script, count = _script(page)
    if count == 0:
        return ""
    path = copy.parent / f"blocks_{page.replace('/', '_')}.sh"
    path.write_text(script, encoding="utf-8")
    # a page that starts serve-demo serves on its default port, 18000, which the 0.1.0
    # config's e2e test needs too: hold that port's lock (tests/parallel_support.py)
    port = fixed_port(18000) if "serve-demo" in script else contextlib.nullcontext()
    with port:
        proc = subprocess.Popen(
            ["bash", str(path)],
            cwd=copy,
            env=_environment(copy),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # the demo's opencompass children go with it on timeout
        )
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            pytest.fail(f"{page}: blocks ran over {timeout} s; output tail:\n{output[-4000:]}")
    if proc.returncode != 0:
        started = [line for line in output.splitlines() if line.startswith(BLOCK_START)]
        where = started[-1].split(" ", 1)[1] if started else page
        pytest.fail(
            f"{where}: block failed (exit {proc.returncode}); output tail:\n{output[-4000:]}"
        )
    return output


@dataclass(frozen=True)
class ReadmeCopy:
    """The copy (``root``) and what the README's blocks printed there (``output``)."""

    root: Path
    output: str

    def block_output(self, where: str) -> str:
        """What the block at *where* (``README.md:17``) printed."""
        _, found, rest = self.output.partition(f"\n{BLOCK_START}{where}\n")
        assert found, f"no output of block {where}"
        return rest.split(f"\n{BLOCK_START}", 1)[0]

    @property
    def demo_output(self) -> str:
        """What the Quickstart's ``gpassk-oc demo`` printed."""
        (where,) = [b.where for b in bash_blocks(ROOT / "README.md") if INSTALL in b.text]
        return self.block_output(where)


def _build(folder: Path) -> None:
    copy = folder / "repo"
    for name in _repo_files():
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    (copy / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    # a clone has a .git: tools that honour .gitignore (ruff) then skip what the docs'
    # commands write into the checkout, as they do for a reader
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    # committed, so `git status` shows what the commands leave behind; .venv is this
    # harness's symlink (the ignore rule `.venv/` matches a reader's real folder only)
    (copy / ".git" / "info" / "exclude").write_text("/.venv\n")
    git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@localhost"]
    subprocess.run([*git, "add", "-A"], cwd=copy, check=True)
    subprocess.run([*git, "commit", "-qm", "clean copy"], cwd=copy, check=True)
    output = run_page(copy, "README.md", README_TIMEOUT)
    (folder / "readme_output.txt").write_text(output, encoding="utf-8")


@pytest.fixture(scope="session")
def readme_copy(tmp_path_factory: pytest.TempPathFactory) -> ReadmeCopy:
    """The clean copy after the README's blocks: built by the first worker that asks, then
    read by every worker (later readers must not write into its demo output folder)."""
    folder = built_once(tmp_path_factory, "readme_copy", _build)
    return ReadmeCopy(folder / "repo", (folder / "readme_output.txt").read_text(encoding="utf-8"))
