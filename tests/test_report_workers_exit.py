"""A successful ``report`` with workers ends quietly (issue 37, item 9): nothing on stderr
but the lines the command means, run after run; and workers that sat idle longer than
loky's default idle timeout (10 s) are still the same processes, so no worker is restarted
while the command ends (the path that printed loky's "worker stopped" and "leaked semlock"
warnings)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_report_workers import small_grid

ROOT = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).with_name("gpassk-oc")


def test_five_reports_with_workers_print_only_what_they_mean(tmp_path):
    work = small_grid(tmp_path / "grid")
    for i in range(5):
        for sidecar in [*work.rglob("*.summary"), *work.rglob("*.drill")]:
            sidecar.unlink()  # every run is a first read, in the workers
        page = tmp_path / f"page{i}.html"
        done = subprocess.run(
            [CLI, "report", work, "--workers", "2", "--format", "html", "--out", page],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        # the page's one line about its drill-down files, and nothing else
        assert done.stderr.splitlines() == [
            f"wrote 12 drill-down files to {tmp_path / f'page{i}_files'}"
        ], done.stderr


IDLE = """
import os, sys, time
from gpassk_oc.worker_pool import Workers

def pid(_=None):
    return os.getpid()

with Workers(2) as workers:
    first = set(workers.map(pid, range(16)))
    time.sleep(11)  # longer than loky's default idle timeout
    later = workers.submit(pid).result()
print("same" if later in first else f"new worker {later} after {sorted(first)}")
"""


def test_idle_workers_are_not_restarted_and_exit_is_quiet():
    done = subprocess.run(
        [sys.executable, "-c", IDLE], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "same"
    assert done.stderr == ""
