"""``gpassk-oc rescore`` bad inputs, table-driven: one ``error:`` line naming the file and
what is wrong, exit status 2, and not one byte or mtime changed inside the work dir.

Each case builds a work dir from the good one (tests/rescore_support.py) and breaks one
thing; the expected substrings are written from the documented rules (docs/rescore.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rescore_support import (
    ABBR,
    LMB_DATASET,
    MODEL,
    QUESTIONS,
    TS,
    dataset_cfg,
    right,
    snapshot,
    write_data,
    write_oc_workdir,
)

from gpassk_oc.cli import main

N = 2


def _good(work: Path) -> Path:
    replies = [[right(g)] * N for _, _, _, g in QUESTIONS]
    return write_oc_workdir(work, replies, dataset=dataset_cfg(N, [N]))


def _pred_file(run: Path) -> Path:
    return run / "predictions" / MODEL / f"{ABBR}.json"


def _not_workdir(work: Path, tmp: Path) -> list[str]:
    (work / "notes").mkdir(parents=True)
    (work / "notes" / "a.txt").write_text("hello")
    return []


def _no_livemath(work: Path, tmp: Path) -> list[str]:
    run = _good(work)
    cfg = next((run / "configs").glob("*.py"))
    cfg.write_text(cfg.read_text().replace(LMB_DATASET, "opencompass.datasets.gsm8k.GSM8KDataset"))
    return []


def _not_multiple(work: Path, tmp: Path) -> list[str]:
    run = _good(work)
    path = _pred_file(run)
    data = json.loads(path.read_text())
    data.pop(str(len(data) - 1))
    path.write_text(json.dumps(data))
    return []


def _cut_json(work: Path, tmp: Path) -> list[str]:
    run = _good(work)
    path = _pred_file(run)
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    return []


def _in_progress(work: Path, tmp: Path) -> list[str]:
    run = _good(work)
    path = _pred_file(run)
    path.rename(path.with_name(f"tmp_{ABBR}.json"))
    return []


def _missing_from_data(work: Path, tmp: Path) -> list[str]:
    _good(work)
    data = write_data(tmp / "LiveMathBench", QUESTIONS[:-1])
    return ["--data", str(data)]


def _out_inside(work: Path, tmp: Path) -> list[str]:
    _good(work)
    return ["-o", str(work / "rescored")]


def _replicas_differ(work: Path, tmp: Path) -> list[str]:
    run = _good(work)
    path = _pred_file(run)
    data = json.loads(path.read_text())
    data[str(len(QUESTIONS))]["gold"] = "999"  # replica 1 of question 0 is another question
    path.write_text(json.dumps(data))
    return []


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[Path, Path], list[str]]
    expect: tuple[str, ...]  # substrings of the one error line; {work}/{pred} filled in


CASES = [
    Case("not-a-workdir", _not_workdir, ("{work}", "not an OpenCompass work dir")),
    Case("no-livemath-task", _no_livemath, ("{work}", "no LiveMathBench task")),
    Case("count-not-multiple", _not_multiple, ("{pred}", "not a whole number", "n=2")),
    Case("cut-mid-json", _cut_json, ("{pred}", "not valid JSON", "cut")),
    Case("run-in-progress", _in_progress, ("tmp_", "still in progress")),
    Case("question-missing-from-data", _missing_from_data, ("{pred}", "missing from --data")),
    Case("out-inside-workdir", _out_inside, ("-o", "inside the work dir")),
    Case("replicas-not-copies", _replicas_differ, ("{pred}", "replica-major")),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_exit_2_and_work_dir_untouched(case, tmp_path, capsys):
    work = tmp_path / "oc"
    extra = case.build(work, tmp_path)
    before = snapshot(work)
    argv = ["rescore", str(work), "-o", str(tmp_path / "out"), *extra]
    if "-o" in extra:
        argv = ["rescore", str(work), *extra]
    capsys.readouterr()
    code = main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    fill = {"work": str(work), "pred": str(_pred_file(work / TS))}
    for want in case.expect:
        assert want.format(**fill) in lines[0], lines[0]
    assert snapshot(work) == before
    assert not (tmp_path / "out").exists()
