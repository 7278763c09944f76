"""One identity per report row (issue 25): a two-temperature work dir's rows are told apart
in every table — main, any-k, verdict sensitivity, accounting — and in CSV, JSON and the
page's data, by the same columns (model, then the knobs that differ: here T)."""

from __future__ import annotations

import csv
import io
import json

from report_support import run_cli

from gpassk_oc.report.data.report_model import build_report
from gpassk_oc.report.formats.html import page_data

#: the fixture's grid (tests/report_support.py `workdir`): 2 models × T in {0.7, 1.0}
EXPECTED = {(m, t) for m in ("qwen-7b", "llama-8b") for t in ("0.7", "1")}


def _tables(markdown: str) -> dict[str, list[list[str]]]:
    """Every markdown table under its '## ' title, as rows of cells (header first)."""
    out: dict[str, list[list[str]]] = {}
    title = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            title = line[3:]
        elif line.startswith("| ") and title:
            out.setdefault(title, []).append([c.strip() for c in line.strip("|").split("|")])
    return out


def test_every_markdown_table_tells_the_temperatures_apart(workdir, capsys):
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--k", "4,8", "--resamples", "0")
    assert code == 0, err
    tables = _tables(out)
    kinds = {"main": 0, "Any k": 0, "Verdict sensitivity": 0, "Accounting": 0}
    for title, rows in tables.items():
        if title.startswith("Greedy") or title.startswith("Notes"):
            continue
        header, body = rows[0], rows[1:]
        assert header[:2] == ["Model", "T"], (title, header)
        pairs = {(r[0].replace(" ⚠", ""), r[1]) for r in body}
        assert pairs == EXPECTED, title
        kind = next((k for k in kinds if title.startswith(k)), "main")
        kinds[kind] += 1
        per_row = len(body) // len(EXPECTED)  # any-k: one line per k
        assert len(body) == per_row * len(EXPECTED)
    assert all(kinds.values()), kinds


def test_csv_json_and_page_carry_the_identity(workdir, capsys):
    root, _ = workdir
    code, out, err = run_cli(capsys, "report", root, "--format", "json", "--resamples", "0")
    assert code == 0, err
    rows = [r for r in json.loads(out) if not r["greedy"]]
    assert {(r["identity"]["model"], r["identity"]["T"]) for r in rows} == EXPECTED
    code, out, err = run_cli(capsys, "report", root, "--format", "csv", "--resamples", "0")
    assert code == 0, err
    lines = [r for r in csv.DictReader(io.StringIO(out)) if r["subset"] == "overall"]
    sampled = {(r["base_model"], r["temperature"]) for r in lines if r["n"] != "1"}
    assert sampled == {(m, str(float(t))) for m, t in EXPECTED}
    data = page_data(build_report([root], n_boot=0))
    assert data["identity"] == ["Model", "T"]
    page_rows = [r for d in data["datasets"] for r in d["rows"]]
    assert {tuple(r["identity"]) for r in page_rows} == EXPECTED
    assert {(r["filters"]["model"], r["filters"]["temperature"]) for r in page_rows} == EXPECTED
