"""The leaderboard page at grid size (issue 25): 240 runs (20 models × 4 temperatures × 3
top_p) in headless Chromium — it renders every row, sorts, filters, opens a row's
drill-down within 2 s of the click, keeps wide tables inside their own scroll box at 800
and 1400 px, and stays ≤ 5 MB (the samples live in the per-row files beside it).

One shared page build. The work dir is the benchmark's grid (bench/grid_workdir.py,
schema-valid, the evaluator's writer) with 8 questions × n = 8 instead of 280 × 48: the
page's size does not depend on them (drill-down is external), the build time does.
Screenshots: ``test-artifacts/grid-800.png``, ``grid-1400.png``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from browser import start_browser, stop_browser

from bench.grid_workdir import TEMPERATURES, grid, write_workdir
from gpassk_oc.cli import main
from gpassk_oc.log import use_cli_format

ROOT = Path(__file__).resolve().parents[1]
RUNS = len(grid())  # 240
PAGE_LIMIT = 5_000_000


@pytest.fixture(scope="module")
def grid_page(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("grid")
    files = list(write_workdir(root / "work", questions=8, n=8))
    assert len(files) == RUNS == 240
    out = root / "grid.html"
    try:
        code = main(
            ["report", str(root / "work"), "--format", "html", "--out", str(out),
             "--resamples", "200"]
        )  # fmt: skip
    finally:
        use_cli_format(sys.__stderr__)
    assert code == 0
    return out


@pytest.fixture(scope="module")
def driver(grid_page):
    drv = start_browser(1400, 1000)
    drv.get(grid_page.as_uri())
    yield drv
    stop_browser(drv)


def _artifact(name: str) -> Path:
    folder = Path(os.environ.get("GPASSK_TEST_ARTIFACTS", ROOT / "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def test_page_stays_small_with_drill_down_beside_it(grid_page):
    assert grid_page.stat().st_size <= PAGE_LIMIT
    drill = sorted(grid_page.with_name("grid_files").glob("row-*.js"))
    assert len(drill) == RUNS


def test_renders_sorts_filters_and_drills_down(driver):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    rows = driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")
    assert len(rows) == RUNS
    header = [
        th.text.split(" ")[0] for th in driver.find_elements(By.CSS_SELECTOR, "#leaderboard th")
    ]
    assert header[:3] == ["Model", "T", "top_p"]  # the row identity: the knobs that vary
    key = driver.find_elements(By.CSS_SELECTOR, "#leaderboard th[data-key^='mG-Pass@']")[0]
    name = key.get_attribute("data-key")
    key.click()  # descending first
    cells = driver.find_elements(By.CSS_SELECTOR, f"#leaderboard tbody td[data-key='{name}']")
    values = [float(c.text) for c in cells]
    assert values == sorted(values, reverse=True)

    Select(driver.find_element(By.ID, "filter-temperature")).select_by_visible_text("0.6")
    rows = driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")
    assert len(rows) == RUNS // len(TEMPERATURES)
    assert {r.find_elements(By.TAG_NAME, "td")[1].text for r in rows} == {"0.6"}

    cell = driver.find_element(By.CSS_SELECTOR, "#leaderboard tbody td.model")
    start = time.monotonic()
    cell.click()
    WebDriverWait(driver, 2).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#detail tr.q"))
    assert time.monotonic() - start <= 2.0
    Select(driver.find_element(By.ID, "filter-temperature")).select_by_visible_text("all")


@pytest.mark.parametrize("width", [800, 1400])
def test_tables_scroll_inside_their_box(driver, width):
    driver.set_window_size(width, 1000)
    driver.execute_script("window.scrollTo(0, 0)")
    overflow = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0  # nothing runs off the page's right edge
    boxes = driver.execute_script(
        "return Array.from(document.querySelectorAll('.scroll')).map("
        "b => [b.clientWidth, b.scrollWidth, b.getBoundingClientRect().right])"
    )
    assert boxes and all(right <= width for _, _, right in boxes)
    if width == 800:  # the main table is wider than 800 px: it scrolls in its box
        assert any(scroll > client for client, scroll, _ in boxes)
    top = driver.execute_script(
        "window.scrollTo(0, 3000); return document.getElementById('top').getBoundingClientRect().top"
    )
    assert top == 0  # the sticky header stays on screen
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(_artifact(f"grid-{width}.png")))
