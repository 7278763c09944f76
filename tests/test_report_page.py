"""The leaderboard page (``gpassk-oc report --format html``) in a real headless Chromium.

Results files are written with known per-sample verdicts, sources and extracted answers;
the page is opened from disk and checked as a reader sees it: the rendered rows, sorting by
a click, the split × language view, the drill-down down to each sample's verdict and who
decided it, no console error and no request leaving the file. A screenshot is kept as a test
artifact (``test-artifacts/leaderboard*.png``, or under ``$GPASSK_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from browser import requests, start_browser, stop_browser
from oracles import exact_mg_documented

from gpassk_oc.cli import main
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.log import use_cli_format

ROOT = Path(__file__).resolve().parents[1]
N, KS = 8, [4, 8]
#: (split, language, question id, gold, extracted answer of a correct sample)
QUESTIONS = [
    ("AMC", "en", "amc-1", "12", "12"),
    ("AMC", "en", "amc-2", r"\frac{1}{2}", "0.5"),
    ("CNMO", "cn", "cnmo-1", "7", "7"),
    ("CNMO", "cn", "cnmo-2", "3", "3"),
]
#: per model: correct samples per question (first c of the n samples are right)
MODELS = {"model-strong": [8, 7, 8, 6], "model-weak": [2, 0, 5, 1], "model-mid": [5, 4, 6, 3]}
SOURCES = ("rule", "judge", "cache")


def write_model(
    root: Path, model: str, counts: list[int], dataset: str = "LiveMathBench-k4_8-r1"
) -> None:
    rows, extracted, correct, source, found = [], [], [], [], []
    for (split, lang, qid, gold, right), c in zip(QUESTIONS, counts):
        rows.append(
            dict(
                question_id=qid,
                split=split,
                language=lang,
                question_type="fill",
                question=f"Question {qid}?",
                answer=gold,
            )
        )
        extracted.append([right] * c + [f"wrong-{i}" for i in range(N - c)])
        correct.append([True] * c + [False] * (N - c))
        source.append([SOURCES[i % 3] for i in range(N)])
        found.append(["boxed"] * N)
    data = build_results(
        ScoringInput(
            spec=RunSpec.parse(KS).at_n(N),
            check="cascade",
            rows=rows,
            extracted=extracted,
            correct=correct,
            source=source,
            found=found,
        )
    )
    out = root / "20261123_000000" / "results" / model / f"{dataset}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("page")
    for model, counts in MODELS.items():
        write_model(root / "work", model, counts)
    out = root / "leaderboard.html"
    try:
        code = main(
            ["report", str(root / "work"), "--format", "html", "--out", str(out), "--k", "8"]
        )
    finally:
        use_cli_format(sys.__stderr__)
    assert code == 0
    return out


@pytest.fixture(scope="module")
def browser(page):
    driver = start_browser()
    driver.get(page.as_uri())
    yield driver
    stop_browser(driver)


def mg8(counts: list[int]) -> float:
    """mG-Pass@8 (percent) averaged over questions, from the exact Fraction oracle."""
    return float(100 * sum(exact_mg_documented(N, c, 8) for c in counts) / len(counts))


def column_texts(driver, key: str) -> list[str]:
    from selenium.webdriver.common.by import By

    cells = driver.find_elements(By.CSS_SELECTOR, f"#leaderboard tbody td[data-key='{key}']")
    return [c.text.strip() for c in cells]


def models_in_order(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [
        c.text.strip().rstrip("\u26a0").strip()
        for c in driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody td.model")
    ]


def test_page_is_one_self_contained_file(page):
    text = page.read_text()
    assert len(text.encode()) < 2_000_000
    # nothing to fetch: no external script, style, font or image reference
    assert not re.search(r"""(src|href)\s*=\s*["'](https?:|//)""", text)
    assert "@import" not in text and "url(http" not in text
    assert text.count("<svg") >= 2  # the figures are inline


def test_rows_sorting_views_and_drill_down(browser, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    assert sorted(models_in_order(driver)) == sorted(MODELS)
    # the default order is the report's: the best mG-Pass@k first, ties by name
    expected = sorted(MODELS, key=lambda m: (-mg8(MODELS[m]), m))
    assert [mg8(MODELS[m]) for m in models_in_order(driver)] == [mg8(MODELS[m]) for m in expected]

    # both interval kinds are offered, the report's default (rerun) first, drawn as bars
    from selenium.webdriver.support.ui import Select

    kinds = Select(driver.find_element(By.ID, "interval-kind"))
    assert [o.text for o in kinds.options] == ["rerun", "benchmark"]
    assert kinds.first_selected_option.text == "rerun"
    assert driver.find_elements(By.CSS_SELECTOR, "#leaderboard .bar .ci")
    # n = 8 < 2k: the rerun intervals are posterior ones, and say so (or, where fewer
    # than 4 of the table's questions vary, that they are unreliable)
    cell = driver.find_element(By.CSS_SELECTOR, "#leaderboard td[data-key='mG-Pass@8']")
    title = cell.get_attribute("title")
    assert title.startswith("rerun interval")
    assert "(posterior)" in title or "(unreliable: fewer than 4 of the" in title, title
    kinds.select_by_visible_text("benchmark")
    cell = driver.find_element(By.CSS_SELECTOR, "#leaderboard td[data-key='mG-Pass@8']")
    assert cell.get_attribute("title").startswith("benchmark interval")
    Select(driver.find_element(By.ID, "interval-kind")).select_by_visible_text("rerun")

    # sort by G-Pass@8_0.5 with a click (descending first), then ascending
    header = driver.find_element(By.CSS_SELECTOR, "#leaderboard th[data-key='G-Pass@8_0.5']")
    header.click()
    values = [float(t) for t in column_texts(driver, "G-Pass@8_0.5")]
    assert values == sorted(values, reverse=True) and len(set(values)) > 1
    driver.find_element(By.CSS_SELECTOR, "#leaderboard th[data-key='G-Pass@8_0.5']").click()
    assert [float(t) for t in column_texts(driver, "G-Pass@8_0.5")] == sorted(values)

    # the CNMO/cn view: mG-Pass@8 over the two CNMO questions only
    Select(driver.find_element(By.ID, "subset")).select_by_value("CNMO/cn")
    shown = dict(zip(models_in_order(driver), column_texts(driver, "mG-Pass@8")))
    for model, counts in MODELS.items():
        assert float(shown[model]) == pytest.approx(mg8(counts[2:]), abs=0.05)

    # drill-down: the weak model's questions in this view, then one question's samples
    cell = next(
        c
        for c in driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody td.model")
        if c.text.startswith("model-weak")
    )
    cell.click()
    detail = driver.find_element(By.ID, "detail")
    assert detail.is_displayed()
    # the verdicts load on demand from the row's file beside the page
    WebDriverWait(driver, 5).until(lambda d: detail.find_elements(By.CSS_SELECTOR, "tr.q"))
    rows = detail.find_elements(By.CSS_SELECTOR, "tr.q")
    assert [r.get_attribute("data-question") for r in rows] == ["CNMO/cn/cnmo-1", "CNMO/cn/cnmo-2"]
    assert rows[0].find_elements(By.TAG_NAME, "td")[1].text == f"5 / {N}"
    rows[0].click()
    samples = detail.find_elements(By.CSS_SELECTOR, "tr.sample")
    assert len(samples) == N
    first, last = (s.find_elements(By.TAG_NAME, "td") for s in (samples[0], samples[-1]))
    assert [td.text for td in first[1:5]] == ["7", "boxed", "\u2713 correct", "rule"]
    assert last[1].text == "wrong-2" and last[3].text == "\u2717 wrong"
    assert last[4].text == SOURCES[(N - 1) % 3]

    artifacts = Path(os.environ.get("GPASSK_TEST_ARTIFACTS", ROOT / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(artifacts / "leaderboard-drilldown.png"))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(artifacts / "leaderboard.png"))
    assert (artifacts / "leaderboard.png").stat().st_size > 10_000


def test_no_console_error_and_no_request_leaves_the_file(browser, page):
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    seen = requests(browser)
    # the page's requests share its navigation's loader id (the browser's own start-up
    # tab asks for chrome:// resources under another one)
    loader = next(loader for url, loader in seen if url == page.as_uri())
    mine = [url for url, ldr in seen if ldr == loader]
    assert mine and all(u.startswith(("file:", "data:")) for u in mine), mine
    assert not [u for u, _ in seen if u.startswith(("http:", "https:", "ws:", "wss:"))]


def test_drill_down_files_hold_every_sample(page):
    """One script per row beside the page (loaded on a click), with per question c / n and
    every sample, per run as columns; the page itself embeds no sample."""
    folder = page.with_name(f"{page.stem}_files")
    files = sorted(folder.glob("row-*.js"))
    assert len(files) == len(MODELS)
    assert "wrong-0" not in page.read_text()  # no extracted answer inlined in the page
    seen = {}
    for path in files:
        text = path.read_text()
        head, _, body = text.partition(",")
        assert head.startswith("window.gpasskDrill(")
        data = json.loads(body.rstrip().removesuffix(");"))
        seen[data["label"]] = data
    for model, counts in MODELS.items():
        questions = seen[model]["questions"]
        assert [(q["c"], q["n"]) for q in questions] == [(c, N) for c in counts]
        ((code, answers, found, verdicts, by),) = questions[0]["runs"]
        assert len(answers) == len(found) == len(verdicts) == len(by) == N
        assert {seen[model]["runs"][code]["by"][b] for b in by} == set(SOURCES)


def test_page_without_its_files_says_so(browser, page, tmp_path):
    """The page copied alone (its drill-down folder left behind): a click says which file
    is missing instead of failing silently."""
    import shutil

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    alone = tmp_path / "alone.html"
    shutil.copy(page, alone)
    browser.get(alone.as_uri())
    try:
        browser.find_element(By.CSS_SELECTOR, "#leaderboard tbody td.model").click()
        missing = WebDriverWait(browser, 5).until(lambda d: d.find_elements(By.ID, "drill-missing"))
        assert "leaderboard_files" in missing[0].text and "missing" in missing[0].text
    finally:
        browser.get(page.as_uri())


def expected_sheet(work: Path, model: str) -> list[dict[str, str]]:
    """The audit-sheet lines of every judged sample of *model*, read straight from its
    results file (sample id ``model/dataset/split/language/index/replica``)."""
    path = next(work.glob(f"*/results/{model}/*.json"))
    out = []
    for d in json.loads(path.read_text())["details"]:
        for r, verdict in enumerate(d["correct"]):
            if verdict is None:
                continue
            where = f"{d['split']}/{d['language']}"
            out.append(
                {
                    "sample_id": f"{model}/{path.stem}/{where}/{d['index']}/{r}",
                    "model": model,
                    "dataset": path.stem,
                    "question_index": str(d["index"]),
                    "replica": str(r),
                    "source": d["source"][r],
                    "verdict": "correct" if verdict else "wrong",
                    "question": d["question"],
                    "gold": d["gold"],
                    "extracted": d["extracted"][r],
                    "reply_end": "",
                    "label": "",
                }
            )
    return out


def test_drill_down_exports_the_audit_sheet(browser, page, tmp_path, capsys):
    """The drill-down's export button downloads every judged sample of the row as the audit
    sheet of `gpassk-oc audit` (same columns, same ids); `report --audit` takes the
    exported sheets once their labels are filled in."""
    import csv
    import time

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from gpassk_oc.report.auditing.audit_verdicts import SHEET_COLUMNS

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
    )
    browser.get(page.as_uri())
    sheets = {}
    for model in MODELS:
        browser.execute_script("window.scrollTo(0, 0)")  # the open drill-down scrolled away
        cell = next(
            c
            for c in browser.find_elements(By.CSS_SELECTOR, "#leaderboard tbody td.model")
            if c.text.startswith(model)
        )
        cell.click()
        button = WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "export-audit"))
        # a CSV opened in a spreadsheet shows parsed values: the page points to the .xlsx
        assert "-o SHEET.xlsx" in browser.find_element(By.ID, "export-hint").text
        # clear of the sticky header, wherever the notes above leave the button
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        target = downloads / f"audit-{model}.csv"
        deadline = time.monotonic() + 10
        while not target.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert target.read_bytes().startswith(b"\xef\xbb\xbf")  # the BOM Excel reads
        text = target.read_text(encoding="utf-8-sig")
        lines = list(csv.DictReader(text.splitlines()))
        assert text.splitlines()[0].split(",") == list(SHEET_COLUMNS)
        assert lines == expected_sheet(page.parent / "work", model)
        sheets[model] = lines

    # fill the labels (one truly wrong "correct" verdict per source) and report with them
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=SHEET_COLUMNS)
        writer.writeheader()
        flipped: set[str] = set()
        for lines in sheets.values():
            for line in lines:
                truly = line["verdict"] == "correct"
                if truly and line["source"] not in flipped:
                    flipped.add(line["source"])
                    truly = False
                writer.writerow({**line, "label": "yes" if truly else "no"})
    capsys.readouterr()
    try:
        code = main(["report", str(page.parent / "work"), "--k", "8", "--audit", str(filled)])
    finally:
        use_cli_format(sys.__stderr__)
    out = capsys.readouterr().out
    assert code == 0
    assert "corrected" in out.lower()


def test_dataset_filter_only_with_several_datasets(browser, page, tmp_path):
    """One dataset: no dataset filter (nothing to choose). Two: a filter listing both, and
    picking one shows that dataset's rows only (the second has two of the three models)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    assert browser.find_elements(By.ID, "filter-dataset") == []
    work = tmp_path / "work"
    for model, counts in MODELS.items():
        write_model(work, model, counts)
    second = {m: MODELS[m] for m in ("model-strong", "model-weak")}
    for model, counts in second.items():
        write_model(work, model, counts, dataset="LiveMathBench-k4_8-r2")
    out = tmp_path / "two.html"
    try:
        code = main(["report", str(work), "--format", "html", "--out", str(out), "--k", "8"])
    finally:
        use_cli_format(sys.__stderr__)
    assert code == 0
    browser.get(out.as_uri())
    try:
        pick = Select(browser.find_element(By.ID, "filter-dataset"))
        assert [o.text for o in pick.options] == ["LiveMathBench-k4_8-r1", "LiveMathBench-k4_8-r2"]
        assert sorted(models_in_order(browser)) == sorted(MODELS)
        pick.select_by_visible_text("LiveMathBench-k4_8-r2")
        assert sorted(models_in_order(browser)) == sorted(second)
        Select(browser.find_element(By.ID, "filter-dataset")).select_by_index(0)
        assert sorted(models_in_order(browser)) == sorted(MODELS)
    finally:
        browser.get(page.as_uri())
