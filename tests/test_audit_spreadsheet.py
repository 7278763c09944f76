"""An audit a person can do in a spreadsheet (issue 35, item 7), on a synthetic work dir.

* The sheet is UTF-8 with a byte-order mark (Excel then shows the Chinese questions), and
  it holds only lines whose labels the report uses: a source that gives one verdict only
  (rules mode's ``rule_undecided``: always "wrong") is left out, saying so.
* ``report --audit`` reads the sheet back as Excel saves it: with the mark, with CRLF
  line ends, separated by semicolons (locales whose decimal mark is a comma) — the rates
  equal those of the plain sheet and the closed form from the counts.
* Labels the report ignores, and a source labelled on one verdict side only, warn.
* The corrected table shows the interval kinds it computed, and its legend names them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests.report_support import run_cli, workdir  # noqa: F401
from tests.test_audit import _write

BOM = b"\xef\xbb\xbf"


def _rules_mode_sources(root: Path) -> dict[str, list[int]]:
    """One run of the work dir, its sources as rules mode writes them: a wrong verdict of an
    odd replica is ``rule_undecided`` (no rule decided it; always "wrong"), every other one
    ``rule``. Returns the verdict counts per source: [correct, wrong]."""
    counts = {"rule": [0, 0], "rule_undecided": [0, 0]}
    files = sorted(root.rglob("results/*/*.json"))
    for path in files[1:]:  # one run is enough, and keeps the corrections quick
        path.unlink()
    for path in files[:1]:
        data = json.loads(path.read_text())
        for row in data.get("details", []):
            row["source"] = [
                "rule_undecided" if (not v and i % 2) else "rule"
                for i, v in enumerate(row["correct"])
            ]
            for v, s in zip(row["correct"], row["source"]):
                if v is not None:
                    counts[s][0 if v else 1] += 1
        path.write_text(json.dumps(data))
    return counts


def _audit(capsys, root: Path, out: Path, size: int = 60) -> tuple[bytes, list[dict], str]:
    code, _, err = run_cli(capsys, "audit", root, "--size", size, "--seed", 3, "-o", out)
    assert code == 0, err
    data = out.read_bytes()
    return data, list(csv.DictReader(io.StringIO(data.decode("utf-8-sig")))), err


def report_json(capsys, root: Path, *argv) -> tuple[list[dict], str]:
    """The JSON rows and stderr (no resamples: the rates and warnings are what is read)."""
    code, out, err = run_cli(capsys, "report", root, *argv, "--format", "json", "--resamples", 0)
    assert code == 0, err
    return [r for r in json.loads(out) if not r["greedy"]], err


def _labelled(rows: list[dict], wrong_every: int = 5) -> list[dict]:
    """Confirm each verdict but every *wrong_every*-th line of each verdict side."""
    seen = {"correct": 0, "wrong": 0}
    for row in rows:
        seen[row["verdict"]] += 1
        truly = (row["verdict"] == "correct") != (seen[row["verdict"]] % wrong_every == 0)
        row["label"] = "yes" if truly else "no"
    return rows


def _excel_save(path: Path, rows: list[dict], delimiter: str) -> None:
    """As Excel's "CSV UTF-8" saves: a byte-order mark, CRLF line ends, the locale's
    separator."""
    buf = io.StringIO()
    writer = csv.DictWriter(
        buf, fieldnames=list(rows[0]), delimiter=delimiter, lineterminator="\r\n"
    )
    writer.writeheader()
    writer.writerows(rows)
    path.write_bytes(BOM + buf.getvalue().encode("utf-8"))


def test_sheet_has_a_bom_and_only_labels_the_report_uses(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _rules_mode_sources(root)
    data, rows, err = _audit(capsys, root, tmp_path / "sheet.csv")
    assert data.startswith(BOM)
    assert data[len(BOM) :].startswith(b"sample_id,")
    assert {r["source"] for r in rows} == {"rule"}
    assert sum(r["verdict"] == "correct" for r in rows) == 30  # the 60 go to the two strata
    assert "left out of the sheet: source 'rule_undecided'" in err


#: characters Python's str.splitlines() breaks a line at but CSV does not (a form feed,
#: NEL, the Unicode line and paragraph separators, record separator): in a cell a writer
#: leaves unquoted, e.g. a reply's "\frac" once read with "\f" as a form feed
ODD_BREAKS = "\x0c\x85\u2028\u2029\x1e"


@pytest.mark.parametrize(
    ("delimiter", "odd"),
    [(";", False), ("\t", False), (",", True)],
    ids=["semicolon", "tab", "odd-line-breaks-in-cells"],
)
def test_report_reads_the_sheet_back_as_excel_saves_it(capsys, workdir, tmp_path, delimiter, odd):  # noqa: F811
    root, _ = workdir
    counts = _rules_mode_sources(root)
    _, rows, _ = _audit(capsys, root, tmp_path / "sheet.csv")
    rows = _labelled(rows)
    if odd:  # every label must still be read (on main 5 lines were cut, their labels lost)
        for row, char in zip(rows[::12], ODD_BREAKS):
            row["reply_end"] = f"so x = \\frac{{1}}{{2}}{char}and the answer is 0.5"
    saved = tmp_path / "saved.csv"
    _excel_save(saved, rows, delimiter)
    data, err = report_json(capsys, root, "--audit", saved)
    assert "warning" not in err, err
    rates = data[0]["corrected"]["rates"]
    assert set(rates) == {"rule"}
    # the closed form: fp = N1·e1 / (N1·e1 + N0·(1 − e0)), fn = N0·e0 / (N1·(1 − e1) + N0·e0)
    n1, n0 = counts["rule"]
    e1 = sum(r["label"] == "no" for r in rows if r["verdict"] == "correct") / 30
    e0 = sum(r["label"] == "yes" for r in rows if r["verdict"] == "wrong") / 30
    assert rates["rule"]["fp"] == pytest.approx(n1 * e1 / (n1 * e1 + n0 * (1 - e0)))
    assert rates["rule"]["fn"] == pytest.approx(n0 * e0 / (n1 * (1 - e1) + n0 * e0))


def test_labels_the_report_ignores_warn(capsys, workdir, tmp_path):  # noqa: F811
    """An older sheet (or the page's export) with labels of rule_undecided lines."""
    root, _ = workdir
    _rules_mode_sources(root)
    _, rows, _ = _audit(capsys, root, tmp_path / "sheet.csv")
    undecided = []
    for path in root.rglob("results/*/*.json"):
        model, dataset = path.parent.name, path.stem
        for row in json.loads(path.read_text())["details"]:
            for i, s in enumerate(row["source"]):
                if s == "rule_undecided" and len(undecided) < 7:
                    group = f"{row['split']}/{row['language']}/"
                    sid = f"{model}/{dataset}/{group}{row['index']}/{i}"
                    undecided.append({**rows[0], "sample_id": sid, "source": s, "verdict": "wrong"})
    sheet = tmp_path / "old.csv"
    _write(sheet, _labelled(rows) + [{**r, "label": "yes"} for r in undecided])
    data, err = report_json(capsys, root, "--audit", sheet)
    assert "the 7 labels of source 'rule_undecided' are not used" in err  # 7 < 20: no refusal
    assert set(data[0]["corrected"]["rates"]) == {"rule"}


def test_labels_on_one_verdict_side_warn(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _rules_mode_sources(root)
    _, rows, _ = _audit(capsys, root, tmp_path / "sheet.csv")
    rows = [r for r in _labelled(rows) if r["verdict"] == "correct"]
    sheet = tmp_path / "one_side.csv"
    _write(sheet, rows)
    _, err = report_json(capsys, root, "--audit", sheet)
    assert (
        "source 'rule' has labels on its 'correct' verdicts only: its fn rests on no label" in err
    )


def _corrected_cells(markdown: str) -> tuple[str, list[str]]:
    section = markdown.split("## Corrected for verdict error")[1].split("\n## ")[0]
    note = section.strip().splitlines()[0]
    cells = re.findall(r"\| (\d+\.\d \[[^\]]*\]) ", section)
    return note, cells


def test_corrected_table_shows_the_kinds_it_computed(capsys, workdir):  # noqa: F811
    root, _ = workdir
    argv = ["report", root, "--verdict-error", "fp=0.02,fn=0.08", "--resamples", "200"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    note, cells = _corrected_cells(out)
    assert cells and all(re.fullmatch(r"\d+\.\d \[\d+\.\d, \d+\.\d\]", c) for c in cells), cells
    assert "rerun interval at 95%" in note and "benchmark" not in note
    code, out, err = run_cli(capsys, *argv, "--interval", "both")
    assert code == 0, err
    note, cells = _corrected_cells(out)
    both = r"\d+\.\d \[\d+\.\d, \d+\.\d; \d+\.\d, \d+\.\d\]"
    assert cells and all(re.fullmatch(both, c) for c in cells), cells
    assert "rerun and benchmark intervals at 95%" in note


def test_a_sheet_in_another_encoding_is_one_line(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _rules_mode_sources(root)
    _, rows, _ = _audit(capsys, root, tmp_path / "sheet.csv")
    sheet = tmp_path / "latin.csv"
    _write(sheet, _labelled(rows))
    sheet.write_bytes(sheet.read_bytes().replace(b"problem", "problème".encode("cp1252")))
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--resamples", "0")
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1
    assert str(sheet) in lines[0] and "not UTF-8" in lines[0] and "CSV UTF-8" in lines[0]


def test_a_sample_labelled_both_ways_is_one_line(capsys, workdir, tmp_path):  # noqa: F811
    """Two sheets pasted together can label one sample yes and no: the last label won,
    silently. Refused, naming both lines; the same label twice is read once."""
    root, _ = workdir
    _rules_mode_sources(root)
    _, rows, _ = _audit(capsys, root, tmp_path / "sheet.csv")
    rows = _labelled(rows)
    flipped = {**rows[3], "label": "no" if rows[3]["label"] == "yes" else "yes"}
    sheet = tmp_path / "pasted.csv"
    _write(sheet, rows + [flipped])
    code, out, err = run_cli(capsys, "report", root, "--audit", sheet, "--resamples", "0")
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert f"--audit {sheet}: line {len(rows) + 2}: sample_id {rows[3]['sample_id']!r}" in lines[0]
    assert "here and the other way on line 5; keep one label per sample" in lines[0]
    _write(sheet, rows + [rows[3]])  # the same label again: as if once
    twice, _ = report_json(capsys, root, "--audit", sheet)
    _write(sheet, rows)
    once, _ = report_json(capsys, root, "--audit", sheet)
    assert twice[0]["corrected"]["rates"] == once[0]["corrected"]["rates"]
