"""The leaderboard page as a first-time reader meets it, in a browser: what the markdown
says about a cell, the page says too (issue 35; tests/test_first_reading.py has the rest)."""

from __future__ import annotations

from tests.report_support import DATASET, abbr, questions, run_cli, write_run


def test_page_says_no_width_where_the_markdown_does(tmp_path, capsys):
    """In a browser: a model right in every sample reads `100.0 [no width]` in the
    markdown, with the legend's reason; the page showed a bare 100.0 and no reason, and
    its header explained '!' though no cell carried it."""
    from browser import start_browser, stop_browser
    from selenium.webdriver.common.by import By

    q = len(questions())
    write_run(tmp_path, abbr("perfect", "1-0"), DATASET, [48] * q, 48)
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "report", tmp_path, "--resamples", "0", "--out", page)
    assert code == 0, err
    driver = start_browser()
    try:
        driver.get(page.as_uri())
        cell = driver.find_element(By.CSS_SELECTOR, '#leaderboard td[data-key="G-Pass@16_1.0"]')
        assert cell.text.startswith("100.0 [no width]")
        assert "every question was answered right in all or in none" in cell.get_attribute("title")
        assert driver.find_element(By.ID, "marks-note").text.startswith("[no width] = ")
        assert "! =" not in driver.find_element(By.ID, "interval-note").text
    finally:
        stop_browser(driver)
