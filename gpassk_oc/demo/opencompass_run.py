"""The demo's ``opencompass`` run: the real CLI on the grid config, in its own session, with
a progress line while it runs and one :class:`DemoError` naming what failed (tools layer)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpassk_oc.demo.leaderboard import DemoError
from gpassk_oc.demo.sim_endpoint import SimEndpoint
from gpassk_oc.workdir import missing_results, results_file

#: How long the OpenCompass run may take before the demo gives up (seconds).
CLI_TIMEOUT = 1200


def say(text: str) -> None:
    """One line of the demo's output, at once."""
    print(text, flush=True)


def opencompass_command() -> list[str]:
    """The ``opencompass`` script next to this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("opencompass")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "opencompass.cli.main"]


def run_opencompass(
    config: Path,
    work_dir: Path,
    log_path: Path,
    pairs: Sequence[tuple[str, str]],
    endpoint: SimEndpoint,
    expected_requests: int,
    env: dict[str, str],
    timeout: float = CLI_TIMEOUT,
) -> Path:
    """Run the CLI on *config* (cwd: the output folder), print progress, and return the
    timestamp directory it wrote; raise :class:`DemoError` naming the failure."""
    before = {p.name for p in work_dir.iterdir()} if work_dir.exists() else set()
    cmd = opencompass_command() + [config.name, "-w", str(work_dir), "--dump-eval-details"]
    start = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        # own session: on timeout or Ctrl-C the CLI and its task processes go together
        proc = subprocess.Popen(
            cmd,
            cwd=config.parent,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            watch = _Watch(work_dir, before, pairs, endpoint, expected_requests, log_path)
            while proc.poll() is None:
                watch.tick(time.monotonic() - start, timeout)
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                _kill_group(proc)
    stamp = _checked_run_dir(proc.returncode, work_dir, before, pairs, log_path)
    say(
        f"  opencompass: {len(pairs)}/{len(pairs)} configs evaluated "
        f"({time.monotonic() - start:.0f} s)"
    )
    return stamp


@dataclass
class _Watch:
    """The running CLI's progress line, printed when it changes (at most every 5 s)."""

    work_dir: Path
    before: set[str]
    pairs: Sequence[tuple[str, str]]
    endpoint: SimEndpoint
    expected: int
    log_path: Path
    last: str = ""
    next_print: float = 0.0

    def tick(self, elapsed: float, timeout: float) -> None:
        if elapsed > timeout:
            raise DemoError(
                f"opencompass did not finish within {timeout:.0f} s; log: {self.log_path}"
            )
        done = _results_done(_new_run_dir(self.work_dir, self.before), self.pairs)
        answered = min(self.endpoint.num_requests, self.expected)
        status = (
            f"  opencompass: {answered}/{self.expected} samples answered, "
            f"{done}/{len(self.pairs)} configs evaluated"
        )
        if status != self.last and elapsed >= self.next_print:
            say(f"{status}  ({elapsed:.0f} s)")
            self.last, self.next_print = status, elapsed + 5


def _checked_run_dir(
    returncode: int | None,
    work_dir: Path,
    before: set[str],
    pairs: Sequence[tuple[str, str]],
    log_path: Path,
) -> Path:
    """The run directory the CLI wrote, with a results file per pair; DemoError naming
    what is missing otherwise."""
    stamp = _new_run_dir(work_dir, before)
    if returncode != 0:
        raise DemoError(f"opencompass exited with code {returncode}; log: {log_path}")
    if stamp is None:
        raise DemoError(f"opencompass wrote no run directory under {work_dir}; log: {log_path}")
    missing = [f"{m}/{d}" for m, d in pairs if not results_file(stamp, m, d).exists()]
    if missing:
        first = (missing_results(stamp) or [missing[0]])[0]  # names each pair's task log
        raise DemoError(
            f"opencompass produced no results for {len(missing)} of {len(pairs)} "
            f"configs (first: {first}); log: {log_path}"
        )
    return stamp


def _new_run_dir(work_dir: Path, before: set[str]) -> Path | None:
    if not work_dir.exists():
        return None
    new = sorted(p for p in work_dir.iterdir() if p.is_dir() and p.name not in before)
    return new[-1] if new else None


def _results_done(stamp: Path | None, pairs: Sequence[tuple[str, str]]) -> int:
    if stamp is None:
        return 0
    return sum(results_file(stamp, m, d).exists() for m, d in pairs)


def _kill_group(proc: subprocess.Popen) -> None:
    """Terminate the CLI's process group (it and its task processes), then wait."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue
