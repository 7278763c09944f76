"""Installing a missing system component from the suite (chromium for the page tests,
slurm-wlm and munge for the Slurm test), safe under parallel pytest-xdist workers.

Two workers used to run ``apt-get install`` at the same moment; one lost the race for
dpkg's lock and its tests errored ("Unable to acquire the dpkg frontend lock"). Now every
install of the suite runs under one inter-process file lock (:func:`parallel_support.machine_lock`, fcntl),
checks again inside it whether the component arrived meanwhile (the other worker may just
have installed it), and apt itself waits up to 10 minutes for dpkg's lock held by anyone
else (``DPkg::Lock::Timeout``).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from parallel_support import machine_lock

#: the one lock file of every install the suite runs (shared by all workers of a machine)
LOCK_PATH = Path(tempfile.gettempdir()) / "gpassk-oc-tests-install.lock"
#: apt waits for dpkg's lock instead of failing at once (another apt run, unattended upgrades)
APT_WAIT = ("-o", "DPkg::Lock::Timeout=600")


class InstallFailed(RuntimeError):
    """One install command failed or ran out of time: ``command`` and ``why``."""

    def __init__(self, command: Sequence[str], why: str) -> None:
        super().__init__(f"`{' '.join(command)}` {why}")
        self.command, self.why = list(command), why


def apt_commands(
    packages: Sequence[str], update_timeout: float, install_timeout: float
) -> list[tuple[list[str], float]]:
    """``apt-get update`` and ``apt-get install`` of *packages*, each waiting for dpkg's lock."""
    return [
        (["apt-get", *APT_WAIT, "update", "-q"], update_timeout),
        (["apt-get", *APT_WAIT, "install", "-y", "-q", *packages], install_timeout),
    ]


def last_line(text: str) -> str:
    """The last non-blank line of a command's output (what a one-line error shows)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def install_missing(
    missing: Callable[[], bool],
    commands: Sequence[tuple[Sequence[str], float]],
    lock_path: Path = LOCK_PATH,
) -> bool:
    """Run *commands* one after the other under the install lock, unless *missing()* is
    false once the lock is held. True when they ran; :class:`InstallFailed` when one fails."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    with machine_lock(lock_path):
        if not missing():
            return False
        for cmd, timeout in commands:
            try:
                proc = subprocess.run(
                    list(cmd),
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired:
                raise InstallFailed(cmd, f"took over {timeout:g} s") from None
            if proc.returncode != 0:
                raise InstallFailed(
                    cmd,
                    f"failed (exit {proc.returncode}): {last_line(proc.stderr or proc.stdout)}",
                )
    return True
