"""A real headless Chromium for page tests: Debian's ``chromium`` and ``chromium-driver``,
installed with apt-get when missing (as root, like the Slurm test's packages; one worker at
a time, tests/system_install.py), driven by
selenium through the local driver binary (never a driver download).

The browser starts with the background-networking switches off, so that the only requests
it makes are the page's own; the performance log records every request for the test to
check that none leaves the file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from system_install import InstallFailed, apt_commands, install_missing

PACKAGES = ("chromium", "chromium-driver")
BROWSER = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"


class BrowserError(RuntimeError):
    """No browser can be had here; the message says why."""


def _missing() -> bool:
    return not (os.path.exists(BROWSER) and os.path.exists(DRIVER))


def ensure_chromium() -> None:
    """Install Debian's chromium and its driver when either binary is missing."""
    if not _missing():
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        raise BrowserError(
            f"{BROWSER} or {DRIVER} missing, and apt-get as root is needed to install "
            + " ".join(PACKAGES)
        )
    try:  # under the suite's install lock: another worker may be installing it now
        install_missing(_missing, apt_commands(PACKAGES, 600, 900))
    except InstallFailed as exc:
        raise BrowserError(str(exc)) from None
    if not (os.path.exists(BROWSER) and os.path.exists(DRIVER)):
        raise BrowserError(f"still missing after apt-get install: {BROWSER} / {DRIVER}")


def start_browser(width: int = 1400, height: int = 1000) -> Any:
    """A selenium Chrome driver on headless Chromium with browser and network logging."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    ensure_chromium()
    profile = tempfile.mkdtemp(prefix="gpassk-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    driver.gpassk_profile = profile  # removed by stop_browser
    return driver


def stop_browser(driver: Any) -> None:
    """Quit the browser and remove its throw-away profile folder."""
    try:
        driver.quit()
    finally:
        shutil.rmtree(getattr(driver, "gpassk_profile", ""), ignore_errors=True)


def requests(driver: Any) -> list[tuple[str, str]]:
    """Every request since the last call as (url, loader id), from the performance log.
    A document's own requests share the loader id of its navigation."""
    import json

    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            params = message["params"]
            out.append((params["request"]["url"], params.get("loaderId", "")))
    return out
