"""Tables that say what they show: each caption checked against its own cells (issue 37,
item 11), on the fixed work dir of tests/test_report_golden.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from report_support import run_cli
from test_report_golden import make_workdir


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    return make_workdir(tmp_path / "work")


def _section(markdown: str, title: str) -> tuple[str, list[list[str]]]:
    """(caption, cells) of the first table under a heading starting with *title*."""
    part = markdown.split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]
    lines = part.strip("\n").splitlines()[1:]
    caption = next(line for line in lines if line and not line.startswith("|"))
    rows = [line for line in lines if line.startswith("|")][2:]
    return caption, [[c.strip() for c in row.strip("|").split("|")] for row in rows]


def test_ranks_caption_promises_the_intervals_its_cells_show(work, capsys):
    """The default markdown (no bootstrap) shows rank intervals of the rerun kind, as the
    page does, and its caption names that kind; without intervals it says so."""
    code, out, err = run_cli(capsys, "report", work)
    assert code == 0, err
    caption, cells = _section(out, "Ranks")
    assert "interval (rerun)" in caption
    ranks = [c for row in cells for c in row[2:]]
    assert ranks and all(re.fullmatch(r"\d+ \(\d+–\d+\)", c) for c in ranks), ranks
    code, out, err = run_cli(capsys, "report", work, "--interval", "benchmark", "--resamples", "0")
    caption, cells = _section(out, "Ranks")
    assert "no interval" in caption
    assert all(re.fullmatch(r"\d+", c) for row in cells for c in row[2:])


def test_a_k_list_keeps_the_tables_at_the_default_k(work, capsys):
    """n = 48, declared ks 4, 8, 16: the tables stay at k = 16 (the largest declared k
    below n) with a list that reaches 48; a single --k moves them."""
    code, out, err = run_cli(capsys, "report", work, "--k", "4,16,48", "--resamples", "0")
    assert code == 0, err
    assert out.startswith("# G-Pass@16 report")
    assert (
        "| mG-Pass@16 [" in out.split("## Any k")[0]
        and "mG-Pass@48" not in out.split("## Any k")[0]
    )
    code, out, err = run_cli(capsys, "report", work, "--k", "48", "--resamples", "0")
    assert code == 0, err and out.startswith("# G-Pass@48 report")
    code, out, err = run_cli(capsys, "report", work, "--k", "4,99")
    assert code == 2 and err.strip().endswith("(largest usable k: 48)")


def test_accounting_caption_says_what_rule_decided_holds(work, capsys):
    """A file whose rules settled 512 samples, 157 of them undecided: the caption says
    rule_decided counts them among its own, and the cells hold 512 and 157."""
    path = next(work.rglob("qwen-7b_t1-0*/*.json"))
    data = json.loads(path.read_text())
    data["accounting"].update({"samples": 1152, "rule_decided": 512, "rule_undecided": 157})
    path.write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "report", work, "--resamples", "0")
    assert code == 0, err
    caption, cells = _section(out, "Accounting")
    assert "rule_decided: every sample the rules settled, rule_undecided among them" in caption
    header = out.split("\n## Accounting", 1)[1].split("\n|", 2)[1].split("|")
    columns = [h.strip() for h in header]
    row = next(r for r in cells if "512" in r)
    assert row[columns.index("rule_decided")] == "512"
    assert row[columns.index("rule_undecided")] == "157"


def test_any_k_caption_says_what_maj_shows(work, capsys):
    """maj@k has no rerun estimate: with rerun intervals (the default) the any-k caption
    says its cells have none; with --interval both it names the benchmark one. The
    fixture records no votes, so maj@k cells are blank: the caption is read beside the
    other cells' brackets."""
    code, out, err = run_cli(capsys, "report", work, "--k", "4,8", "--resamples", "0")
    assert code == 0, err
    caption = out.split("\n## Any k", 1)[1].split("\n\n")[1]
    assert "maj@k: no interval here" in caption
    assert "benchmark interval only" not in caption
    code, out, err = run_cli(capsys, "report", work, "--k", "4,8", "--interval", "both")
    caption = out.split("\n## Any k", 1)[1].split("\n\n")[1]
    assert "maj@k: benchmark interval only" in caption
