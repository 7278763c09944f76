"""Rerun intervals that rest on too few varying questions say so (issue 35, item 4): a
table of 8 questions where only 3 have a G-Pass@4_1.0 value strictly between 0 and 1 is
marked 'unreliable' ('!' with its reason in the legend) in markdown, JSON and CSV; a table
where every question varies is not."""

from __future__ import annotations

import csv
import io
import json
import math
from fractions import Fraction

from report_support import DATASET, abbr, compare_rerun, questions, run_cli, write_run

N, K = 8, 4
KEY = "G-Pass@4_1.0"
FEW = [8, 8, 8, 8, 8, 5, 6, 7]  # 5 all-correct (value 1), 3 strictly between
MANY = [4, 5, 6, 7, 5, 6, 7, 4]  # every question strictly between 0 and 1


def _value(c: int) -> Fraction:
    """G-Pass@4_1.0 of one question: the share of 4-subsets of its 8 samples all correct,
    by counting subsets (independent of the package's tables)."""
    return Fraction(math.comb(c, K), math.comb(N, K))


def _varying(cs: list[int]) -> int:
    return sum(0 < _value(c) < 1 for c in cs)


def _report(tmp_path, capsys, cs: list[int], fmt: str) -> str:
    root = tmp_path / str(cs)
    write_run(root, abbr("m", "0-7"), DATASET, cs, N, qs=questions()[: len(cs)])
    code, out, err = run_cli(capsys, "report", root, "--k", "4", "--format", fmt)
    assert code == 0, err
    return out


def _overall_cell(markdown: str) -> str:
    """The KEY cell of the first table's (overall) first row."""
    lines = markdown.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("|") and f" {KEY} " in line)
    header = [h.strip().split(" ")[0] for h in lines[at].strip("|").split("|")]  # 'KEY [rerun 95%]'
    row = [c.strip() for c in lines[at + 2].strip("|").split("|")]
    return row[header.index(KEY)]


def test_three_varying_questions_are_flagged_in_every_format(tmp_path, capsys):
    assert _varying(FEW) == 3 and _varying(MANY) == len(MANY)
    md = _report(tmp_path, capsys, FEW, "markdown")
    cell = _overall_cell(md)
    assert cell.endswith("]!"), cell
    legend = md.split("\n## ")[0]  # the bullets above the first table
    assert "- `!` = unreliable, for one of these reasons:" in legend
    assert "  - fewer than 4 of the table's questions vary" in legend
    rows = json.loads(_report(tmp_path, capsys, FEW, "json"))
    rerun = next(r for r in rows if not r["greedy"])["metrics"][KEY]["rerun"]
    assert rerun["status"] == "unreliable"
    assert rerun["low"] is not None and rerun["low"] < rerun["high"]  # still shown
    lines = csv.DictReader(io.StringIO(_report(tmp_path, capsys, FEW, "csv")))
    line = next(r for r in lines if r["subset"] == "overall")
    assert line[f"{KEY} rerun_status"] == "unreliable" and line[f"{KEY} rerun_low"] != ""


def test_many_varying_questions_are_not_flagged(tmp_path, capsys):
    cell = _overall_cell(_report(tmp_path, capsys, MANY, "markdown"))
    assert cell.endswith("]*") and "!" not in cell, cell  # n = 2k: posterior, not flagged
    lines = csv.DictReader(io.StringIO(_report(tmp_path, capsys, MANY, "csv")))
    line = next(r for r in lines if r["subset"] == "overall")
    assert line[f"{KEY} rerun_status"] == "posterior"


def test_compare_flags_a_difference_on_three_varying_questions(tmp_path, capsys):
    """A − B where only 3 questions vary in A or in B: the rerun interval of the difference
    is marked in JSON and with '!' (and its reason) in markdown."""
    other = [8, 8, 8, 8, 8, 6, 7, 5]  # the same 3 questions vary
    assert sum(0 < _value(a) < 1 or 0 < _value(b) < 1 for a, b in zip(FEW, other)) == 3
    status, row, out = compare_rerun(capsys, tmp_path, FEW, other, N, KEY)
    assert status == "unreliable"
    assert "]!" in row and "  - fewer than 4 of the table's questions vary in A or in B" in out
