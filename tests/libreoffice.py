"""A real spreadsheet program for the audit-sheet tests: Debian's LibreOffice Calc,
installed with apt-get when missing (as root, one worker at a time under the suite's
install lock, tests/system_install.py), run headless to convert a sheet the way a person
opening it would see it.

Each conversion runs with its own profile folder: two workers starting ``soffice`` on one
profile at the same moment would wait on each other's lock.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from system_install import InstallFailed, apt_commands, install_missing

PACKAGES = ("libreoffice-calc",)
SOFFICE = "/usr/bin/soffice"
#: export as CSV: comma, double quote, UTF-8, each cell's text as the program shows it
SHOWN_CSV = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true"
#: import a CSV as the Text Import dialog's defaults do (comma, UTF-8): numbers, dates
#: and formulas parsed
CSV_IMPORT = "CSV:44,34,76,1"


class OfficeError(RuntimeError):
    """No LibreOffice can be had here, or a conversion failed; the message says why."""


def _missing() -> bool:
    return not os.path.exists(SOFFICE)


def ensure_soffice() -> None:
    """Install Debian's LibreOffice Calc when ``soffice`` is missing."""
    if not _missing():
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        raise OfficeError(f"{SOFFICE} missing, and apt-get as root is needed to install it")
    try:  # under the suite's install lock: another worker may be installing it now
        install_missing(_missing, apt_commands(PACKAGES, 600, 1200))
    except InstallFailed as exc:
        raise OfficeError(str(exc)) from None
    if _missing():
        raise OfficeError(f"still missing after apt-get install: {SOFFICE}")


def convert(src: Path, to: str, out_dir: Path, infilter: str | None = None) -> Path:
    """*src* converted by LibreOffice to the filter *to* (``SHOWN_CSV``, ``"xlsx"``) in
    *out_dir*, as a person opening and saving it would get; the converted file."""
    ensure_soffice()
    profile = out_dir.parent / f"{out_dir.name}-profile"
    cmd = [SOFFICE, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless"]
    cmd += [f"--infilter={infilter}"] if infilter else []
    cmd += ["--convert-to", to, "--outdir", str(out_dir), str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    out = out_dir / f"{src.stem}.{to.split(':')[0]}"
    if proc.returncode != 0 or not out.exists():
        raise OfficeError(f"`{' '.join(cmd)}` failed: {proc.stderr.strip() or proc.stdout}")
    return out
