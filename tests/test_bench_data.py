"""The labelled data shipped in bench/data/: every source has its licence, and the README's
row counts are the files' (counted here from the raw JSON lines, not by the bench's loader)."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data"
README = DATA / "README.md"

# | `file` | `source` | rows | true | licence | [name](LICENSES/x.txt) |
ROW = re.compile(
    r"^\|\s*`(?P<file>[^`]+)`\s*\|\s*`(?P<source>[^`]+)`\s*\|\s*(?P<rows>\d+)\s*\|"
    r"\s*(?P<true>\d+)\s*\|\s*(?P<licence>[^|]+?)\s*\|\s*\[[^\]]*\]\((?P<text>[^)]+)\)\s*\|$"
)
LICENCE_TITLES = {"Apache-2.0": "Apache License", "MIT": "MIT License"}
# the reasoning file names a source by "repository @ commit : path"
SHORT = {
    "interp-reasoning/thought-anchors.com": "thought_anchors",
    "uzaymacar/understanding-reasoning-models": "r1_distill_1p5b_math",
}


def _table() -> list[dict]:
    rows = [m.groupdict() for line in README.read_text().splitlines() if (m := ROW.match(line))]
    assert rows, "bench/data/README.md has no source table"
    return rows


def _raw_counts(path: Path) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            raw = rec["source"]
            name = SHORT.get(raw.split(" @ ")[0], raw)
            out.setdefault(name, Counter())[rec["label"]] += 1
    return out


def test_every_shipped_file_and_source_is_in_the_table():
    table = _table()
    listed = {(r["file"], r["source"]) for r in table}
    shipped = sorted(p.name for p in DATA.glob("*.jsonl*"))
    assert shipped == ["dev.jsonl.gz", "reasoning-dev.jsonl.gz"]
    for name in shipped:
        for source in _raw_counts(DATA / name):
            assert (name, source) in listed, f"{name}: source {source} has no licence row"


@pytest.mark.parametrize("row", _table(), ids=lambda r: r["source"])
def test_row_counts_match_the_readme(row):
    counts = _raw_counts(DATA / row["file"])[row["source"]]
    assert sum(counts.values()) == int(row["rows"])
    assert counts[True] == int(row["true"])


@pytest.mark.parametrize("row", _table(), ids=lambda r: r["source"])
def test_licence_text_is_present(row):
    text = (DATA / row["text"]).read_text()
    assert row["licence"] in LICENCE_TITLES, f"unknown licence {row['licence']}"
    assert LICENCE_TITLES[row["licence"]] in text
    if row["licence"] == "MIT":  # MIT: the copyright notice must travel with the data
        assert row["source"] in text


def test_readme_attributes_every_source():
    text = README.read_text()
    for row in _table():
        assert f"- **`{row['source']}`**" in text, f"no attribution for {row['source']}"


def test_the_loader_reads_what_ships():
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from answer_data import counts_by_source

    for row in _table():
        n, true = counts_by_source(DATA / row["file"])[row["source"]]
        assert (n, true) == (int(row["rows"]), int(row["true"]))
