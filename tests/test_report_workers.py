"""``report``'s worker processes (issue 25): a grid's first read of its results files and the
figures run in loky workers. The outputs and the summary sidecars must be the same bytes
with and without workers; Ctrl-C while workers run is one line and exit 130, with no worker
left behind; a worker that dies costs time, not the result."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import start_cli_as_from_terminal
from report_support import run_cli

from gpassk_oc.report.data.collect import collect, keep_summaries
from gpassk_oc.worker_pool import Workers

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from grid_workdir import write_workdir  # noqa: E402  (the bench's schema-valid grid)


def small_grid(root: Path) -> Path:
    """12 runs (1 model x 4 temperatures x 3 top_p) of 40 questions x n = 16, written by the
    evaluator's own writer: samples, votes and texts as a real results file has them."""
    list(write_workdir(root, models=1, questions=40, n=16))
    return root


def _pid_of_caller() -> int:
    return os.getpid()


def _die_in_a_worker(parent: int) -> str:
    """Kills the worker process it runs in (as the kernel's OOM killer would)."""
    if os.getpid() != parent:
        os._exit(3)
    return "done here"


def test_workers_run_calls_in_other_processes_in_order():
    with Workers(2) as workers:
        pids = workers.map(_pid_of_caller_of, range(40))
        one = workers.submit(_pid_of_caller).result()
    assert [i for i, _ in pids] == list(range(40))
    assert {pid for _, pid in pids} | {one} != {os.getpid()}
    assert os.getpid() not in {pid for _, pid in pids}
    with Workers(1) as workers:  # one allowed: everything here
        assert {pid for _, pid in workers.map(_pid_of_caller_of, range(5))} == {os.getpid()}


def _pid_of_caller_of(i: int) -> tuple[int, int]:
    return i, os.getpid()


def test_a_worker_that_dies_costs_time_not_the_result():
    with Workers(2) as workers:
        assert workers.submit(_die_in_a_worker, os.getpid()).result() == "done here"
        # and the workers after it are fresh ones that work
        assert workers.submit(_pid_of_caller).result() != os.getpid()


def test_a_cold_grid_is_read_by_the_workers(tmp_path, monkeypatch):
    """The files without a current sidecar go to the pool; those with one are read here."""
    work = small_grid(tmp_path / "grid")
    sent: list[list[Path]] = []
    real_map = Workers.map

    def spy(self, func, items, least=2):
        items = list(items)
        sent.append(items)
        return real_map(self, func, items, least)

    monkeypatch.setattr(Workers, "map", spy)
    rows, _, _ = collect([work], workers=2)
    assert len(rows) == 12 and len(sent[0]) == 12
    keep_summaries([run for row in rows for run in row.runs])
    sent.clear()
    collect([work], workers=2)
    assert sent == [[]]  # every sidecar current now: nothing for the workers


def test_outputs_and_sidecars_are_the_same_bytes_with_any_number_of_workers(tmp_path, capsys):
    """Two copies of one cold grid, reported with 1 and with 2 workers: the page, its
    drill-down files, the figures, the JSON and the sidecars written beside the results
    files are byte for byte the same (the copies keep the files' mtimes), but for the
    folder the JSON names."""
    small_grid(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    for name, workers in (("a", "1"), ("b", "2")):
        folder = tmp_path / name
        page = ["--format", "html", "--out", folder / "out" / "page.html"]
        code, _, err = run_cli(
            capsys, "report", folder, *page, "--plots", folder / "out" / "fig", "--workers", workers
        )
        assert code == 0, err
        out = folder / "out" / "report.json"
        code, _, err = run_cli(capsys, "report", folder, "--out", out, "--workers", workers)
        assert code == 0, err

    def tree(folder: Path) -> dict[str, bytes]:
        # the JSON names each run's results file: its folder is the one difference
        return {
            str(p.relative_to(folder)): p.read_bytes().replace(bytes(folder), b"FOLDER")
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".gpassk-oc-written.json"
        }

    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert sorted(a) == sorted(b)
    assert any(k.endswith(".json.summary") for k in a) and any(k.endswith(".drill") for k in a)
    assert any(k.endswith(".png") for k in a) and any(k.endswith(".svg") for k in a)
    assert [k for k in a if a[k] != b[k]] == []


def _live_members(group: int) -> list[str]:
    """The processes of process group *group* that still run (zombies left to init are
    done: they only wait to be reaped)."""
    ps = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(group)], capture_output=True)
    lines = ps.stdout.decode(errors="replace").splitlines()
    return [line for line in lines if line.split()[1:2] and not line.split()[1].startswith("Z")]


@pytest.mark.skipif(shutil.which("ps") is None, reason="needs ps to see the workers")
@pytest.mark.parametrize("after", [0.0, 0.15])
def test_ctrl_c_while_the_workers_read_is_one_line_and_no_worker_is_left(tmp_path, after):
    """SIGINT to the whole process group (a terminal's Ctrl-C) *after* seconds from when
    the first-read workers exist: at once (their interpreter is starting) and while they
    import what they run (a Python that handles SIGINT would print a KeyboardInterrupt
    traceback there). The workers print nothing, the command prints one line and exits
    130, and no worker outlives it."""
    work = small_grid(tmp_path / "grid")
    proc = start_cli_as_from_terminal(tmp_path, ["report", str(work), "--workers", "2"])
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if any("loky" in line for line in _live_members(proc.pid)):
            break
        time.sleep(0.02)
    time.sleep(after)
    assert proc.poll() is None, "the report ended before its workers were seen"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "error: interrupted\n")
    deadline = time.monotonic() + 10
    while _live_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _live_members(proc.pid) == []
    assert not list(work.rglob("*.summary"))  # an interrupted report writes no sidecar
