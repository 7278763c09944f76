"""Data before text: what the markdown report prints, the JSON (and CSV) carry with the same
value — here the two places they parted (found by checking every markdown cell of the
demo's report against its JSON under a dozen flag sets)."""

from __future__ import annotations

import csv
import io
import json
import re

from report_support import run_cli


def _section(markdown: str, title: str) -> list[list[str]]:
    """The body cells of the table under ``## {title}``."""
    part = markdown[markdown.index(f"## {title}") :].split("\n## ")[0]
    rows = [line for line in part.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line.strip()[2:-2].split(" | ")] for line in rows]


def test_rank_intervals_are_the_same_in_markdown_json_and_csv(workdir, capsys):
    """The markdown with rerun intervals only skips the bootstrap; its rank intervals
    were drawn 4,000 times where the JSON and CSV drew --resamples (here 10) times."""
    root, _ = workdir
    flags = ["report", root, "--resamples", "10"]
    code, md, err = run_cli(capsys, *flags)
    assert code == 0, err
    code, out, err = run_cli(capsys, *flags, "--format", "json")
    assert code == 0, err
    code, text, err = run_cli(capsys, *flags, "--format", "csv")
    assert code == 0, err
    rows = [r for r in json.loads(out) if not r["greedy"]]
    lines = {(x["model"], x["subset"]): x for x in csv.DictReader(io.StringIO(text))}
    dataset = rows[0]["dataset"]
    table = _section(md, f"Ranks — {dataset}")
    header, body = table[0], table[1:]
    checked = 0
    for cells in body:
        (row,) = [r for r in rows if list(r["identity"].values()) == cells[:2]]
        for key, cell in zip(header[2:], cells[2:]):
            rank, low, high = map(int, re.fullmatch(r"(\d+) \((\d+)–(\d+)\)", cell).groups())
            assert row["ranks"][key]["rank"] == rank
            assert row["ranks"][key]["rerun"] == [low, high], (row["model"], key)
            line = lines[(row["model"], "overall")]
            assert [line[f"{key} rank_rerun_low"], line[f"{key} rank_rerun_high"]] == [
                str(low),
                str(high),
            ]
            checked += 1
    assert checked == 16  # 4 rows × 4 headline metrics

