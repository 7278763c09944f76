"""``gpassk-oc audit --by class`` and ``report --audit-classes``: maj@k corrected for
class-level verdict error, end to end on a synthetic work dir (no OpenCompass run)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.report_support import report_json, run_cli, workdir  # noqa: F401
from tests.test_audit import _add_sources, _write

K = 16
MAJ = f"maj@{K}"


def _add_votes(root: Path) -> None:
    """Sources as tests/test_audit.py gives them, and votes: the samples graded correct
    are class 0, the wrong ones split over classes 1 and 2 (every third sample 2)."""
    _add_sources(root)
    for path in root.rglob("results/*/*.json"):
        data = json.loads(path.read_text())
        for row in data.get("details", []):
            row["vote"] = [
                None if v is None else 0 if v else 1 + (i % 3 == 0)
                for i, v in enumerate(row["correct"])
            ]
            row["vote_correct"] = 0 if any(row["correct"]) else None
        path.write_text(json.dumps(data))


def _class_sheet(capsys, root: Path, out: Path, size: int = 120) -> list[dict]:
    code, _, err = run_cli(capsys, "audit", root, "--by", "class", "--size", size, "-o", out)
    assert code == 0, err
    assert "classes (" in err
    return list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))


def _label(rows: list[dict], gold_wrong: int = 0) -> list[dict]:
    """Label every class as its verdict says, except each source's first *gold_wrong*
    classes graded wrong: those are said to hold the gold (the checker missed them)."""
    missed: dict[str, int] = {}
    for row in rows:
        row["label"] = "yes" if row["verdict"] == "correct" else "no"
        if row["verdict"] == "wrong" and missed.get(row["source"], 0) < gold_wrong:
            row["label"] = "yes"
            missed[row["source"]] = missed.get(row["source"], 0) + 1
    return rows


def _maj(rows: list[dict]) -> list[dict]:
    return [r["corrected"]["metrics"][MAJ] for r in rows]


def test_class_sheet_is_stratified_and_reproducible(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    _add_votes(root)
    rows = _class_sheet(capsys, root, tmp_path / "a.csv")
    assert len(rows) == 120 and len({r["class_id"] for r in rows}) == 120
    assert all(r["class_id"].split("/")[-1] == f"class{r['class']}" for r in rows)
    assert {(r["source"], r["verdict"]) for r in rows} == {
        (s, v) for s in ("judge", "rule") for v in ("correct", "wrong")
    }
    assert all(r["answer"] == "1" and r["gold"] == "1" and int(r["size"]) > 0 for r in rows)
    again = _class_sheet(capsys, root, tmp_path / "b.csv")
    assert [r["class_id"] for r in again] == [r["class_id"] for r in rows]


def test_maj_is_not_corrected_by_sample_rates_and_says_which_flag_would(capsys, workdir):  # noqa: F811
    root, _ = workdir
    _add_votes(root)
    data, _ = report_json(capsys, root, "--verdict-error", "fp=0.01,fn=0.02")
    assert all(m["status"] == "not corrected" and m["value"] is None for m in _maj(data))
    code, out, err = run_cli(capsys, "report", root, "--verdict-error", "fp=0.01,fn=0.02")
    assert code == 0, err
    assert "not corrected (--audit-classes)" in out and "gpassk-oc audit --by class" in out


def test_class_audit_corrects_maj(capsys, workdir, tmp_path):  # noqa: F811
    """Labels that agree with every verdict leave maj@16 exactly at the raw value (the
    sweep's); labels saying the checker missed gold classes raise it, with an interval
    that holds the value, and the class rates are reported with their intervals."""
    root, _ = workdir
    _add_votes(root)
    sheet = tmp_path / "classes.csv"
    rows = _class_sheet(capsys, root, sheet)
    _write(sheet, _label(rows))
    sweep, _ = report_json(capsys, root, "--k", "4,16")
    raw = {(r["model"], r["dataset"]): r["k_sweep"]["metrics"][str(K)][MAJ]["value"] for r in sweep}
    data, _ = report_json(capsys, root, "--audit-classes", sheet)
    for row, fixed in zip(data, _maj(data)):
        assert fixed["status"] == "ok" and fixed["value"] == raw[(row["model"], row["dataset"])]
        assert "rates" in row["corrected"] and row["corrected"]["origin"] is None
    _write(sheet, _label(rows, gold_wrong=6))
    data, _ = report_json(capsys, root, "--audit-classes", sheet)
    for row, fixed in zip(data, _maj(data)):
        assert fixed["value"] > raw[(row["model"], row["dataset"])]
        assert fixed["ci_low"] <= fixed["value"] <= fixed["ci_high"]
        assert fixed["rerun_low"] is None  # as the raw maj@k: no rerun interval
        assert list(row["corrected"]["metrics"]) == [MAJ]
    by_source = data[0]["corrected"]["class_rates"]["by_source"]
    assert set(by_source) == {"judge", "rule"}
    assert all(0 < r["e0"] < r["e0_interval"][1] < 1 for r in by_source.values())
    code, out, err = run_cli(
        capsys, "report", root, "--audit-classes", sheet, "--verdict-error", "fp=0,fn=0"
    )
    assert code == 0, err
    assert f"{MAJ} raw" in out and "G-Pass@16_1.0 raw" in out and "class rates" in out


def _bad(kind: str, rows: list[dict]) -> list[dict]:
    if kind == "unknown-id":
        rows[0]["class_id"] = "nosuch/model/0/class1"
    elif kind == "bad-label":
        rows[3]["label"] = "gold"
    elif kind == "too-few":
        for row in rows[15:]:
            row["label"] = ""
    elif kind == "inverted":  # every class mis-graded: e1 = e0 = 1
        for row in rows:
            row["label"] = "no" if row["verdict"] == "correct" else "yes"
    return rows


BAD = [
    ("unknown-id", ("class_id", "nosuch/model/0/class1")),
    ("bad-label", ("line 5", "yes, no, 1 or 0")),
    ("too-few", ("15 audited classes", "at least 20")),
    ("inverted", ("source 'judge'", "[0, 1)")),
]


@pytest.mark.parametrize(("kind", "expect"), BAD, ids=[b[0] for b in BAD])
def test_bad_class_sheet_is_one_line_exit_2(capsys, workdir, tmp_path, kind, expect):  # noqa: F811
    root, _ = workdir
    _add_votes(root)
    sheet = tmp_path / "classes.csv"
    rows = _label(_class_sheet(capsys, root, sheet, size=60))
    rows = [r for r in rows if r["source"] == "judge"][:20]
    _write(sheet, _bad(kind, rows))
    code, out, err = run_cli(capsys, "report", root, "--resamples", "0", "--audit-classes", sheet)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    for phrase in ("--audit-classes", str(sheet), *expect):
        assert phrase in lines[0], lines[0]


def test_class_audit_needs_votes(capsys, workdir, tmp_path):  # noqa: F811
    root, _ = workdir
    code, _, err = run_cli(
        capsys, "audit", root, "--by", "class", "--size", 10, "-o", tmp_path / "c.csv"
    )
    assert code == 2 and "no answer classes" in err and len(err.strip().splitlines()) == 1
