"""The suite's installs run one at a time across processes (tests/system_install.py): two
installers started together on a harmless command (a Python one-liner that logs its start
and end, never apt-get) run one after the other, and the second sees the component the
first installed and runs nothing. A control with two different lock files overlaps, so
the check can fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from system_install import APT_WAIT, apt_commands

TESTS = Path(__file__).resolve().parent

#: one installer process: install_missing with a command that logs start, sleeps, logs end
#: (and leaves a marker: the "installed component")
INSTALLER = """
import sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from system_install import install_missing
log, lock, marker, recheck = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
step = (
    "import sys, time; from pathlib import Path; log = Path(sys.argv[1]); "
    "log.open('a').write('start\\\\n'); time.sleep(1.0); log.open('a').write('end\\\\n'); "
    "Path(sys.argv[2]).touch()"
)
missing = (lambda: not marker.exists()) if recheck == "recheck" else (lambda: True)
# both installers start together: each says it is ready and waits for the other
(log.parent / f"ready-{{sys.argv[5]}}").touch()
deadline = time.monotonic() + 60
while len(list(log.parent.glob("ready-*"))) < 2 and time.monotonic() < deadline:
    time.sleep(0.01)
ran = install_missing(missing, [([sys.executable, "-c", step, str(log), str(marker)], 60)], lock)
print("ran" if ran else "skipped")
"""


def _two_installers(tmp_path: Path, locks: tuple[str, str], recheck: str) -> tuple[list, list]:
    script = tmp_path / "installer.py"
    script.write_text(INSTALLER.format(tests=str(TESTS)))
    log, marker = tmp_path / "log.txt", tmp_path / "installed"
    procs = [
        subprocess.Popen(
            [sys.executable, script, log, tmp_path / lock, marker, recheck, str(i)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i, lock in enumerate(locks)
    ]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    return log.read_text().split(), sorted(outs)


def test_one_lock_runs_two_installers_one_after_the_other(tmp_path):
    lines, outs = _two_installers(tmp_path, ("same.lock", "same.lock"), "always")
    assert lines == ["start", "end", "start", "end"] and outs == ["ran", "ran"]


def test_the_second_installer_finds_the_component_installed(tmp_path):
    lines, outs = _two_installers(tmp_path, ("same.lock", "same.lock"), "recheck")
    assert lines == ["start", "end"] and outs == ["ran", "skipped"]


def test_control_two_locks_overlap(tmp_path):
    lines, _ = _two_installers(tmp_path, ("a.lock", "b.lock"), "always")
    assert lines == ["start", "start", "end", "end"]  # without one lock they overlap


def test_apt_waits_for_the_dpkg_lock():
    for cmd, _ in apt_commands(["chromium"], 1, 2):
        assert cmd[:3] == ["apt-get", *APT_WAIT] and APT_WAIT[1] == "DPkg::Lock::Timeout=600"
