"""``gpassk-oc rescore`` bad inputs, table-driven: one ``error:`` line naming the file and
what is wrong, exit status 2, and not one byte or mtime changed inside the work dir.

Each case builds a work dir from the good one (tests/rescore_support.py) and breaks one
thing; the expected substrings are written from the documented rules (docs/rescore.md).
"""

from __future__ import annotations

import json
import shutil
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


# ---- another tool's files: copies DERIVED from the real lm-eval 0.4.13 fixture, one thing
# broken in each (tests/fixtures/harnesses/lm_eval/shaky_n8 is left as lm-eval wrote it)
LM_EVAL = Path(__file__).resolve().parent / "fixtures" / "harnesses" / "lm_eval" / "shaky_n8"
SAMPLES = "samples_livemathbench_amc_en_"


def _lm_eval(work: Path) -> Path:
    shutil.copytree(LM_EVAL, work)
    return next(work.glob(f"*/{SAMPLES}*.jsonl"))


def _edit_line(work: Path, line: int, edit: Callable[[dict], None]) -> None:
    path = _lm_eval(work)
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    edit(record)
    lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def _lm_cut_line(work: Path, tmp: Path) -> list[str]:
    path = _lm_eval(work)
    text = path.read_text()
    third = text.index("\n", text.index("\n") + 1) + 1  # the start of line 3
    path.write_text(text[: third + 40])
    return []


def _lm_short_replies(work: Path, tmp: Path) -> list[str]:
    _edit_line(work, 3, lambda r: r["resps"][0].pop())
    return []


def _lm_no_gold(work: Path, tmp: Path) -> list[str]:
    def drop(r: dict) -> None:
        r["target"] = None
        r["doc"].pop("answer")

    _edit_line(work, 2, drop)
    return []


def _lm_format_changed(work: Path, tmp: Path) -> list[str]:
    _edit_line(work, 1, lambda r: r.update(responses=r.pop("resps")))
    return []


def _two_tools(work: Path, tmp: Path) -> list[str]:
    _good(work)
    shutil.copytree(LM_EVAL, work / "lm-eval-out")
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
    Case("lm-eval-truncated-line", _lm_cut_line, (SAMPLES, ".jsonl:3:", "truncated")),
    Case("lm-eval-replies-not-repeats", _lm_short_replies, (SAMPLES, ":3:", "7 replies", "8")),
    Case("lm-eval-no-gold", _lm_no_gold, (SAMPLES, ":2:", "no gold")),
    Case("lm-eval-format-changed", _lm_format_changed, (SAMPLES, ":1:", "'resps'", "version")),
    Case("two-tools-mixed", _two_tools, ("{work}", "two tools", "opencompass", "lm-eval")),
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
