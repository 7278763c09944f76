"""A saved markdown report explains its ⚠ marks: the run-health warnings behind them are
listed in it (the page lists them above its board, the JSON rows carry them); before, they
went to stderr only and the file showed marks nothing in it explained."""

from __future__ import annotations

import json

from report_support import DATASET, N, abbr, questions, run_cli, write_run


def test_markdown_lists_the_warnings_of_marked_rows(tmp_path, capsys):
    q = len(questions())
    samples = q * N
    empty = samples // 4  # a quarter of the replies empty: over the 5% threshold
    health = {"overall": {"samples": samples, "questions": q, "empty": empty}}
    write_run(tmp_path, abbr("odd", "0-7"), DATASET, [N // 2] * q, N, top={"health": health})
    write_run(tmp_path, abbr("fine", "0-7"), DATASET, [N // 3] * q, N)
    flags = ["report", tmp_path, "--resamples", "0"]
    code, md, err = run_cli(capsys, *flags)
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--format", "json")
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)}
    (warning,) = rows[abbr("odd", "0-7")]["warnings"]
    assert rows[abbr("fine", "0-7")]["warnings"] == []
    assert f"{empty} of {samples} (25.0%) replies are empty" in warning  # the counts, exact
    section = md[md.index("## Warnings") :].split("\n## ")[0]
    assert [line[2:] for line in section.splitlines() if line.startswith("- ")] == [warning]
    assert "| odd ⚠ |" in md and "| fine |" in md
