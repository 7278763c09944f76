"""The page says ``[n<2k]`` where the markdown does: a table of one question at k ≤ n < 2k
has no rerun interval (no unbiased variance, and no Beta to fit to one question); the
page's data left the cell out and the board showed a bare value with no reason."""

from __future__ import annotations

import html
import json
import re

from tests.report_support import DATASET, abbr, questions, run_cli, write_run


def _one_question(root) -> None:
    """Two rows of one question with n = 6 samples, read at k = 4 (n < 2k)."""
    for model, c in (("qwen-7b", 3), ("llama-8b", 5)):
        write_run(root, abbr(model, "0-7"), DATASET, [c], 6, qs=questions()[:1])


def test_page_data_keeps_the_short_interval(tmp_path, capsys):
    _one_question(tmp_path)
    flags = ["report", tmp_path, "--k", "4", "--resamples", "0"]
    code, md, err = run_cli(capsys, *flags)
    assert code == 0, err
    assert md.count("[n<2k]") >= 8  # two rows × four headline metrics, plus the legend
    assert "- [n<2k]: not even a Beta can be fitted." in md
    code, page, err = run_cli(capsys, *flags, "--format", "html")
    assert code == 0, err
    blob = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', page, re.S)
    data = json.loads(html.unescape(blob.group(1)))
    assert data["short_note"] == "not even a Beta can be fitted"
    (dataset,) = data["datasets"]
    cells = [row["cells"]["overall"]["values"] for row in dataset["rows"]]
    for values in cells:
        for key in ("G-Pass@4_0.5", "G-Pass@4_0.75", "G-Pass@4_1.0", "mG-Pass@4"):
            rerun = [i for i in values[key]["intervals"] if i["kind"] == "rerun"]
            assert rerun == [{"kind": "rerun", "low": None, "high": None, "status": "n < 2k"}]


def test_page_shows_short_where_the_markdown_does(tmp_path, capsys):
    """In a browser: the cell reads ``[n<2k]`` with the reason in its tooltip and under
    the board, as the markdown's cell and legend do."""
    from browser import start_browser, stop_browser
    from selenium.webdriver.common.by import By

    _one_question(tmp_path)
    page = tmp_path / "page.html"
    code, _, err = run_cli(
        capsys, "report", tmp_path, "--k", "4", "--resamples", "0", "--out", page
    )
    assert code == 0, err
    driver = start_browser()
    try:
        driver.get(page.as_uri())
        cell = driver.find_element(By.CSS_SELECTOR, '#leaderboard td[data-key="G-Pass@4_1.0"]')
        assert cell.text.split("\n")[0].endswith(" [n<2k]"), cell.text
        assert "not even a Beta can be fitted" in cell.get_attribute("title")
        note = driver.find_element(By.ID, "marks-note").text
        assert "[n<2k] = not even a Beta can be fitted." in note
    finally:
        stop_browser(driver)


def test_greedy_cells_keep_no_rerun_interval(workdir, capsys):
    """Greedy (one sample per question) has no rerun interval: its n = 1 < 2k status is
    not a cell to mark — the markdown's Greedy column shows the benchmark interval only."""
    root, _ = workdir
    code, page, err = run_cli(capsys, "report", root, "--resamples", "50", "--format", "html")
    assert code == 0, err
    blob = re.search(r'<script id="page-data" type="application/json">(.*?)</script>', page, re.S)
    data = json.loads(html.unescape(blob.group(1)))
    greedy = [
        cell["values"]["Greedy"]
        for dataset in data["datasets"]
        for row in dataset["rows"]
        for cell in row["cells"].values()
    ]
    assert greedy and all(g is not None for g in greedy)
    assert {i["kind"] for g in greedy for i in g["intervals"]} == {"benchmark"}
