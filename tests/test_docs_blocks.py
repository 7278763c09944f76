"""Every runnable ```bash block of README.md and docs/*.md runs as printed, from a clean
copy of the repository, so a documented command cannot rot.

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

Pages run in order — README.md, then mkdocs.yml's nav, then pages not in the nav — each
page's blocks in one ``bash`` (so an ``export`` carries to the page's later blocks), all
in the same copy: the Quickstart's demo runs once and every later page reads its output
folder. ``set -eo pipefail`` stops a page at the first failing command — bash's rule
excepts a command that fails before the last ``&&`` of a list, so a block keeps such a
list last or checks it (the Quickstart's lists are handled above). Blocks marked
``<!-- not-run: reason -->`` (GPU, cluster, real API, network) are
skipped; tests/test_docs.py checks that each marker gives a reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import ROOT, bash_blocks, pages_in_run_order
from parallel_support import fixed_port

pytestmark = pytest.mark.e2e

#: The Quickstart's demo command is CI's install followed by the demo.
INSTALL = (
    "python3.11 -m venv .venv && .venv/bin/pip install -q torch==2.13.0 && "
    ".venv/bin/pip install -q -e ."
)
DEMO = ".venv/bin/gpassk-oc demo"
#: Bounds per page (seconds): the README runs the full demo (about a minute alone on
#: 2 cores, several under load); other pages run short commands.
README_TIMEOUT = 900
# a page that runs an OpenCompass grid (safety-and-errors) beside the other worker's e2e runs
PAGE_TIMEOUT = 600


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
        parts += [f"printf '\\n::block %s\\n' '{block.where}'", text]
        count += 1
    return "\n".join(parts) + "\n", count


def _run_page(copy: Path, page: str, timeout: int) -> None:
    script, count = _script(page)
    if count == 0:
        return
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
        started = [line for line in output.splitlines() if line.startswith("::block ")]
        where = started[-1].split(" ", 1)[1] if started else page
        pytest.fail(
            f"{where}: block failed (exit {proc.returncode}); output tail:\n{output[-4000:]}"
        )


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """A clean copy of the repository after the README's blocks (the demo among them)."""
    copy = tmp_path_factory.mktemp("docs_blocks") / "repo"
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
    _run_page(copy, "README.md", README_TIMEOUT)
    return copy


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
    _run_page(copy, page, PAGE_TIMEOUT)


def test_git_status_clean_after_every_page(copy):
    """Runs after the pages (pytest keeps file order): nothing they wrote shows in git."""
    assert untracked(copy) == [], "docs commands leave files git does not ignore"
