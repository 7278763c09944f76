"""The results-file summaries the report keeps beside each results file (issue 25):
written after a successful report, read instead of the file while it is unchanged, made
afresh when the file changes (even at the same size), never written over a user's file,
and files without a record (schema 1) still read."""

from __future__ import annotations

import json
from fractions import Fraction

from report_support import DATASET, N, abbr, questions, report_json, write_run

from gpassk_oc.core.runs.results_summary import SUMMARY_SCHEMA, read_summary, summary_path


def _work(tmp_path, record: bool = True):
    cs = [(5 * j + 3) % (N + 1) for j in range(len(questions()))]
    path = write_run(tmp_path, abbr("qwen-7b", "0-7"), DATASET, cs, N, record=record)
    return path, cs


def _pass1(cs) -> float:
    """pass@1 in percent, by exact fractions (the oracle)."""
    return float(100 * sum(Fraction(c, N) for c in cs) / len(cs))


def test_sidecar_is_written_then_read_with_the_same_report(tmp_path, capsys):
    path, cs = _work(tmp_path)
    first, _ = report_json(capsys, tmp_path)
    side = summary_path(path)
    assert side.name == path.name + ".summary"
    assert json.loads(side.read_text())["schema"] == SUMMARY_SCHEMA
    assert read_summary(path).from_sidecar
    second, _ = report_json(capsys, tmp_path)
    assert second == first
    assert first[0]["metrics"]["pass@1"]["value"] == round(_pass1(cs), 4)


def test_a_changed_results_file_is_read_again(tmp_path, capsys):
    path, cs = _work(tmp_path)
    report_json(capsys, tmp_path)
    data = json.loads(path.read_text())
    # move one correct sample from question 0 to question 1: same size, other counts
    q0, q1 = data["details"][0], data["details"][1]
    i, j = q0["correct"].index(True), q1["correct"].index(False)
    q0["correct"][i], q1["correct"][j] = False, True
    q0["c"], q1["c"] = q0["c"] - 1, q1["c"] + 1
    before = path.stat().st_size
    path.write_text(json.dumps(data))
    assert path.stat().st_size == before
    assert not read_summary(path).from_sidecar
    cs[0], cs[1] = cs[0] - 1, cs[1] + 1
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["metrics"]["pass@1"]["value"] == round(_pass1(cs), 4)
    summary = read_summary(path)
    assert summary.from_sidecar and summary.c[:2] == cs[:2]


def test_a_users_file_at_the_sidecar_path_is_left_alone(tmp_path, capsys):
    path, _ = _work(tmp_path)
    side = summary_path(path)
    side.write_text("my notes\n")
    report_json(capsys, tmp_path)
    report_json(capsys, tmp_path)
    assert side.read_text() == "my notes\n"
    assert not read_summary(path).from_sidecar


def test_a_file_of_an_earlier_release_still_reads(tmp_path, capsys):
    _, cs = _work(tmp_path, record=False)  # schema 1: no run record
    rows, err = report_json(capsys, tmp_path)
    assert "no run record" in err
    assert rows[0]["metrics"]["pass@1"]["value"] == round(_pass1(cs), 4)


def test_a_sidecar_without_checks_is_checked_once_and_saved_with_them(tmp_path, capsys):
    """A sidecar an earlier writer left without the cross-check's result is checked on the
    next report and saved again, so later reports skip the check."""
    path, cs = _work(tmp_path)
    report_json(capsys, tmp_path)
    side = summary_path(path)
    body = json.loads(side.read_text())
    body["summary"]["checks"] = None
    side.write_text(json.dumps(body))
    assert read_summary(path).checks is None
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["metrics"]["pass@1"]["value"] == round(_pass1(cs), 4)
    again = read_summary(path)
    assert again.from_sidecar and again.checks is not None


def test_an_unchanged_file_is_known_by_size_and_mtime_a_touched_one_by_its_hash(tmp_path, capsys):
    """The sidecar records the file's mtime: the next read trusts size + mtime without
    reading the file. A file rewritten with the same bytes (new mtime) is recognised by
    its SHA-256, and its sidecar takes the new mtime after the next report."""
    import os

    path, cs = _work(tmp_path)
    report_json(capsys, tmp_path)
    recorded = json.loads(summary_path(path).read_text())["results_file"]
    assert recorded["mtime_ns"] == path.stat().st_mtime_ns
    assert read_summary(path).from_sidecar
    stamp = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(stamp, stamp))  # same bytes, another mtime
    again = read_summary(path)
    assert again.from_sidecar and again.resave  # by the hash
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["metrics"]["pass@1"]["value"] == round(_pass1(cs), 4)
    assert json.loads(summary_path(path).read_text())["results_file"]["mtime_ns"] == stamp
    assert not read_summary(path).resave  # quick again
