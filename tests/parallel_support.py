"""How the suite splits over pytest-xdist workers: ``-n 2 --dist loadfile
--no-loadscope-reorder`` (the README's test command); registered by conftest.

* ``loadfile`` keeps each test module on one worker, so a module's fixtures serve all its
  tests once (an e2e module's one real ``opencompass`` run, the docs copy, the demo run).
  The finer ``loadgroup`` is no option: xdist 3.8 marks groups through a node attribute
  that pytest 9.2 no longer reads, so every test would be scheduled alone.
* Under xdist the modules with e2e tests are collected first, the longest first, and
  ``--no-loadscope-reorder`` keeps that order: the long runs start at once and the
  short modules fill in around them (xdist's own order, by test count, would start them
  last). A one-process run keeps the plain order.
* Port 18000 is named by 0.1.0's demo config and by the docs' serve-demo recipe; the
  tests that serve on it hold :func:`fixed_port` so they never overlap, on any worker.
* A fixture worth building once for the whole session although modules on both workers
  use it (the README's clean copy with its full demo, tests/readme_copy.py) is built by
  :func:`built_once` in a folder both workers see; the modules that only read it run last
  (:data:`READ_LAST`), when the module that builds it early has long finished it, so no
  worker waits.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

#: e2e modules, longest first (measured on 2 cores); other e2e modules follow them.
#: test_lint.py (not e2e) starts the second worker: its mypy run fills the mypy cache that
#: the docs copy's mypy run (docs/contributing.md, minutes later in test_docs_blocks.py)
#: then reads (conftest.py sets MYPY_CACHE_DIR).
LONGEST_FIRST = [
    "test_docs_blocks.py",
    "test_lint.py",
    "test_e2e_slurm.py",
    "test_e2e_record.py",
    "test_configgen_e2e.py",
    "test_e2e_opencompass.py",
]
#: Modules that read the README's copy (built by test_docs_blocks.py, first above) and do
#: little else: last of all.
READ_LAST = ["test_demo.py"]


@contextmanager
def machine_lock(path: Path) -> Iterator[None]:
    """Hold the inter-process lock of the file *path* (blocks while another holds it)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fixed_port(port: int) -> contextlib.AbstractContextManager[None]:
    """Hold the machine-wide lock of a fixed TCP port while serving on it."""
    return machine_lock(Path(tempfile.gettempdir()) / f"gpassk-test-port-{port}.lock")


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder *name*, filled by ``build(folder)`` once per test session, whichever
    worker asks first; a worker asking meanwhile waits for it. A failed build is not
    retried: every later asker fails with its message."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name, numbered=False)
        build(folder)
        return folder
    # under xdist a worker's base temp folder (popen-gw0, popen-gw1) is in the session's
    session = tmp_path_factory.getbasetemp().parent
    folder, built, failed = (session / f"{name}{end}" for end in ("", ".built", ".failed"))
    with machine_lock(session / f"{name}.lock"):
        if failed.exists():
            pytest.fail(f"{name} (built by another worker): {failed.read_text()}")
        if not built.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what an interrupted build left
            folder.mkdir()
            try:
                build(folder)
            except (Exception, pytest.fail.Exception) as exc:
                failed.write_text(str(exc) or repr(exc))
                raise
            built.touch()
    return folder


def _rank(item: pytest.Item, e2e_modules: set[Path]) -> int:
    if item.path.name in LONGEST_FIRST:
        return LONGEST_FIRST.index(item.path.name)
    if item.path.name in READ_LAST:
        return len(LONGEST_FIRST) + 2
    return len(LONGEST_FIRST) + (item.path not in e2e_modules)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    e2e_modules = {item.path for item in items if item.get_closest_marker("e2e") is not None}
    items.sort(key=lambda item: _rank(item, e2e_modules))  # stable: file order kept within
