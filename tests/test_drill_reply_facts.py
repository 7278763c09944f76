"""The page's drill-down shows what the run's tool recorded of each reply (real evalscope
fixture ``shaky_n4_cut``: 21 of 32 replies cut by ``max_tokens``): per run its output-token
statistics, per sample its finish reason and output tokens; a run without them (lm-eval)
shows neither. Expected values are read from the tool's own predictions file."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import importer_support as imp
import pytest

from gpassk_oc.cli import main
from gpassk_oc.log import use_cli_format

CUT = imp.HARNESSES / "evalscope" / "shaky_n4_cut"


def _recorded() -> list[tuple[str, int]]:
    (path,) = CUT.glob("*/predictions/*/*.jsonl")
    lines = [json.loads(line)["model_output"] for line in path.read_text().splitlines()]
    return [(o["choices"][0]["stop_reason"], o["usage"]["output_tokens"]) for o in lines]


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("facts")
    imp.rescore(CUT, root / "work" / "a")
    imp.rescore(imp.HARNESSES / "lm_eval" / "shaky_n8", root / "work" / "b")
    out = root / "page.html"
    try:
        argv = ["report", str(root / "work"), "--format", "html", "--out", str(out)]
        assert main([*argv, "--k", "2", "--resamples", "20"]) == 0
    finally:
        use_cli_format(sys.__stderr__)
    return out


def _drills(page: Path) -> dict[str, dict]:
    out = {}
    for path in page.with_name(f"{page.stem}_files").glob("row-*.js"):
        head, _, body = path.read_text().partition(",")
        data = json.loads(body.rstrip().removesuffix(");"))
        out[data["label"]] = data
    return out


def test_drill_files_carry_each_samples_facts_and_each_runs_statistics(page):
    drills = _drills(page)
    cut, none = drills["gpassk-demo-shaky@evalscope"], drills["gpassk-demo-shaky@lm-eval"]
    recorded = _recorded()
    pairs = Counter(
        (reason, tokens)
        for q in cut["questions"]
        for run in q["runs"]
        for reason, tokens in zip(run[5], run[6])
    )
    assert pairs == Counter(recorded)
    (stats,) = [r["tokens"] for r in cut["runs"]]
    counts = sorted(t for _, t in recorded)
    assert (stats["counted"], stats["max"]) == (len(counts), counts[-1])
    assert stats["at_limit"] == [r for r, _ in recorded].count("max_tokens") == 21
    assert all(len(run) == 5 for q in none["questions"] for run in q["runs"])
    assert all("tokens" not in r for r in none["runs"])


def test_page_shows_finish_reasons_and_token_statistics(page):
    """In a real browser: the cut run's drill-down has its token table and, per sample, a
    finish reason and a count; the lm-eval run's has neither."""
    from browser import start_browser, stop_browser
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    drills = _drills(page)
    driver = start_browser()
    try:
        driver.get(page.as_uri())

        def open_row(label: str) -> object:
            # the two tools name the dataset differently: one dataset shown at a time
            Select(driver.find_element(By.ID, "filter-dataset")).select_by_visible_text(
                drills[label]["dataset"]
            )
            (cell,) = driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody td.model")
            cell.click()
            detail = driver.find_element(By.ID, "detail")
            WebDriverWait(driver, 5).until(lambda d: detail.find_elements(By.CSS_SELECTOR, "tr.q"))
            return detail

        detail = open_row("gpassk-demo-shaky@evalscope")
        table = detail.find_element(By.ID, "drill-tokens")
        cells = [td.text for td in table.find_elements(By.CSS_SELECTOR, "tr td")]
        assert cells[1] == "32" and cells[5] == str(max(t for _, t in _recorded()))
        assert cells[6].startswith("21 (65.6%)")
        detail.find_elements(By.CSS_SELECTOR, "tr.q")[0].click()
        reasons = [td.text for td in detail.find_elements(By.CSS_SELECTOR, "td.finish")]
        tokens = [td.text for td in detail.find_elements(By.CSS_SELECTOR, "td.tokens")]
        assert len(reasons) == len(tokens) == 4
        assert set(reasons) <= {"max_tokens", "stop"} and all(t.isdigit() for t in tokens)

        detail = open_row("gpassk-demo-shaky@lm-eval")
        assert not detail.find_elements(By.ID, "drill-tokens")
        detail.find_elements(By.CSS_SELECTOR, "tr.q")[0].click()
        assert detail.find_elements(By.CSS_SELECTOR, "tr.sample")
        assert not detail.find_elements(By.CSS_SELECTOR, "td.finish")
    finally:
        stop_browser(driver)


def test_output_tokens_figure_only_for_runs_with_counts(tmp_path):
    """``--plots``: the output-length figure of the evalscope run's dataset steps up to
    each recorded count's share of the samples (counted from the tool's file); the
    lm-eval run's dataset, without counts, has no such figure."""
    imp.rescore(CUT, tmp_path / "work" / "a")
    imp.rescore(imp.HARNESSES / "lm_eval" / "shaky_n8", tmp_path / "work" / "b")
    plots = tmp_path / "plots"
    argv = ["report", str(tmp_path / "work"), "--plots", str(plots), "--k", "2"]
    try:
        assert main([*argv, "--resamples", "20"]) == 0
    finally:
        use_cli_format(sys.__stderr__)
    (figure,) = plots.glob("output_tokens*.json")
    (curve,) = json.loads(figure.read_text())
    counts = [t for _, t in _recorded()]
    assert curve["counted"] == len(counts)
    tops = {x: y for x, y in zip(curve["x"][1::2], curve["y"][1::2])}
    assert tops == {
        v: pytest.approx(100 * sum(c <= v for c in counts) / len(counts)) for v in counts
    }
    assert (plots / f"{figure.stem}.svg").is_file() and (plots / f"{figure.stem}.png").is_file()
    assert len(list(plots.glob("gpass_vs_tau*.json"))) == 2  # two datasets, one figure of lengths
