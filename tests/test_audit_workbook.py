"""The audit sheet shows a person exactly what the model wrote, in a real spreadsheet
program (issue 35, item 7), checked with LibreOffice Calc (tests/libreoffice.py installs it
when missing).

A spreadsheet parses a CSV's cells: LibreOffice shows an extracted answer ``1/2`` as a date,
``=1+1`` as ``2``, ``007`` as ``7``. ``audit -o SHEET.xlsx`` writes a workbook whose text
cells it shows as written; a CSV with such cells warns. ``report --audit`` reads the
workbook back after LibreOffice saved it (shared strings, its own layout).
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from libreoffice import CSV_IMPORT, SHOWN_CSV, convert

from tests.report_support import run_cli, workdir  # noqa: F401
from tests.test_audit_spreadsheet import _labelled, report_json

#: answers a spreadsheet takes for a formula, date, number or boolean, and plain ones
RISKY = (
    "=1+1", "+5", "-2+3", "@SUM(1;2)", "1/2", "3/4", "1e5", "0.10", "007",
    "12345678901234567890", "TRUE", "1,000", "50%", "(3)", "3.14159265358979323846",
    "x = 1/2", "\\frac{1}{2}", "中文 <&> \"quoted\"", "_x0041_ stays", "12",
)  # fmt: skip


def _plant(root: Path) -> dict[str, tuple[str, str]]:
    """One run of the work dir, its gold and extracted answers replaced by :data:`RISKY`;
    {"split/language/index/replica": (gold, extracted)} as the results file now holds."""
    files = sorted(root.rglob("results/*/*.json"))
    for path in files[1:]:
        path.unlink()
    data = json.loads(files[0].read_text())
    truth = {}
    for q, row in enumerate(data["details"]):
        row["gold"] = RISKY[q % len(RISKY)]
        row["extracted"] = [RISKY[(q + r + 1) % len(RISKY)] for r in range(len(row["correct"]))]
        for r in range(len(row["correct"])):
            key = f"{row['split']}/{row['language']}/{row['index']}/{r}"
            truth[key] = (row["gold"], row["extracted"][r])
    files[0].write_text(json.dumps(data))
    return truth


def _shown(path: Path, out: Path, infilter: str | None = None) -> list[dict]:
    """The sheet's lines as LibreOffice shows them (each cell's displayed text)."""
    shown = convert(path, SHOWN_CSV, out, infilter)
    return list(csv.DictReader(io.StringIO(shown.read_text(encoding="utf-8-sig"))))


def test_the_workbook_shows_what_the_model_wrote(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    truth = _plant(root)
    code, _, err = run_cli(
        capsys, "audit", root, "--size", 40, "--seed", 2, "-o", tmp_path / "s.xlsx"
    )
    assert code == 0, err
    lines = _shown(tmp_path / "s.xlsx", tmp_path / "shown")
    assert len(lines) == 40
    for line in lines:  # sample_id: model/dataset/split/language/index/replica
        key = "/".join(line["sample_id"].split("/")[-4:])
        assert (line["gold"], line["extracted"]) == truth[key], line["sample_id"]
    assert {line["extracted"] for line in lines} >= {"=1+1", "1/2", "007", "0.10"}


def test_a_csv_with_such_cells_warns_and_a_spreadsheet_changes_them(capsys, workdir, tmp_path):  # noqa: F811
    """Why the workbook: the same sample as a CSV, opened with the import dialog's
    defaults, shows other values — and ``audit`` says so, naming the .xlsx."""
    root, _ = workdir
    _plant(root)
    sheet = tmp_path / "s.csv"
    code, _, err = run_cli(capsys, "audit", root, "--size", 40, "--seed", 2, "-o", sheet)
    assert code == 0, err
    assert "may show in a spreadsheet as a number, date or formula result" in err
    assert f"write the sheet with -o {tmp_path / 's.xlsx'}" in err
    written = list(csv.DictReader(io.StringIO(sheet.read_text(encoding="utf-8-sig"))))
    shown = _shown(sheet, tmp_path / "shown", CSV_IMPORT)
    changed = {w["extracted"] for w, s in zip(written, shown) if w["extracted"] != s["extracted"]}
    assert {"=1+1", "1/2", "007", "0.10"} <= changed


def test_report_reads_the_workbook_as_libreoffice_saves_it(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _plant(root)
    code, _, err = run_cli(
        capsys, "audit", root, "--size", 60, "--seed", 3, "-o", tmp_path / "s.xlsx"
    )
    assert code == 0, err
    rows = _labelled(_shown(tmp_path / "s.xlsx", tmp_path / "shown"))
    labelled = tmp_path / "labelled.csv"  # the labels typed, then saved as a workbook
    with labelled.open("w", encoding="utf-8-sig", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    saved = convert(labelled, "xlsx", tmp_path / "saved", CSV_IMPORT)
    assert "xl/sharedStrings.xml" in zipfile.ZipFile(saved).namelist()  # not our layout
    data, err = report_json(capsys, root, "--audit", saved)
    assert "warning" not in err, err
    from_csv, _ = report_json(capsys, root, "--audit", labelled)
    assert data[0]["corrected"]["rates"] == from_csv[0]["corrected"]["rates"]
    rates = data[0]["corrected"]["rates"]["unknown"]
    # the closed form: fp = N1·e1 / (N1·e1 + N0·(1 − e0)), fn = N0·e0 / (N1·(1 − e1) + N0·e0)
    verdicts = [
        v
        for row in json.loads(next(root.rglob("results/*/*.json")).read_text())["details"]
        for v in row["correct"]
        if v is not None
    ]
    n1, n0 = sum(verdicts), len(verdicts) - sum(verdicts)
    correct = [r for r in rows if r["verdict"] == "correct"]
    wrong = [r for r in rows if r["verdict"] == "wrong"]
    e1 = sum(r["label"] == "no" for r in correct) / len(correct)
    e0 = sum(r["label"] == "yes" for r in wrong) / len(wrong)
    assert rates["fp"] == pytest.approx(n1 * e1 / (n1 * e1 + n0 * (1 - e0)))
    assert rates["fn"] == pytest.approx(n0 * e0 / (n1 * (1 - e1) + n0 * e0))


@pytest.mark.parametrize(
    ("content", "why"),
    [(b"PK\x03\x04 not a zip", "not a readable .xlsx workbook"), (None, "not a readable .xlsx")],
    ids=["broken-zip", "zip-without-workbook"],
)
def test_a_broken_workbook_is_one_line(capsys, workdir, tmp_path, content, why):  # noqa: F811
    root, _ = workdir
    sheet = tmp_path / "s.xlsx"
    if content is None:
        with zipfile.ZipFile(sheet, "w") as zf:
            zf.writestr("hello.txt", "no workbook here")
    else:
        sheet.write_bytes(content)
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--resamples", "0")
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert f"--audit {sheet}: {why}" in lines[0]


def test_text_xml_cannot_hold_comes_back_as_written(tmp_path):
    """Control characters (XML 1.0 has none of them but tab and line ends) and a literal
    ``_x0041_`` (SpreadsheetML's escape syntax) in a reply: written escaped, shown by
    LibreOffice and read back as the model wrote them; a row of ints stays numbers."""
    from gpassk_oc.report.auditing.audit_workbook import workbook_bytes, workbook_rows

    reply = "a\x00b\x01c\x1fd _x0041_ _X00e9_ tab\there\r\nline é 中"
    rows = [["reply", "n", "label"], [reply, 7, ""]]
    path = tmp_path / "odd.xlsx"
    path.write_bytes(workbook_bytes(rows))
    assert workbook_rows(path.read_bytes()) == [["reply", "n", "label"], [reply, "7", ""]]
    shown = _shown(path, tmp_path / "shown")  # a CRLF shows as one line break
    assert shown == [{"reply": reply.replace("\r\n", "\n"), "n": "7", "label": ""}]
