"""A results folder copied under another seed or model name holds the same samples, not
new ones: `report` leaves it out (pooled like a seed it would double n and narrow every
interval on no new data), `compare` refuses it, and what grouping and greedy matching
decided reaches the JSON rows, not only stderr. Expected values come from the Fraction oracle on the counts."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import report_support as rs


def _copy(root, src: str, dst: str) -> None:
    shutil.copytree(root / rs.TS / "results" / src, root / rs.TS / "results" / dst)


def test_a_copied_run_is_left_out_not_pooled_as_a_seed(tmp_path, capsys):
    cs = np.random.default_rng(11).integers(0, rs.N + 1, len(rs.questions()))
    rs.write_run(tmp_path, rs.abbr("m", "0-7", seed=1), rs.DATASET, cs, rs.N)
    _copy(tmp_path, rs.abbr("m", "0-7", seed=1), rs.abbr("m", "0-7", seed=2))  # "another seed"
    _copy(tmp_path, rs.abbr("m", "0-7", seed=1), rs.abbr("twin", "0-7"))  # another model name
    rows, err = rs.report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["n"] == rs.N  # not 2N or 3N
    assert rows[0]["metrics"]["G-Pass@16_1.0"]["value"] == pytest.approx(
        rs.oracle_mean("G-Pass@16_1.0", [(rs.N, int(c)) for c in cs]), abs=1e-3
    )
    notes = [note for note in rows[0]["notes"] if "byte-identical copy" in note]
    assert len(notes) == 2 and all(note in err for note in notes)
    assert any(rs.abbr("m", "0-7", seed=2) in note for note in notes)
    assert any(rs.abbr("twin", "0-7") in note for note in notes)


def test_two_honest_seeds_with_equal_counts_still_pool(tmp_path, capsys):
    # different samples (another shuffle of the same counts): different files, pooled
    cs = np.random.default_rng(12).integers(0, rs.N + 1, len(rs.questions()))
    rs.write_run(
        tmp_path, rs.abbr("m", "0-7", seed=1), rs.DATASET, cs, rs.N, rng=np.random.default_rng(1)
    )
    rs.write_run(
        tmp_path, rs.abbr("m", "0-7", seed=2), rs.DATASET, cs, rs.N, rng=np.random.default_rng(2)
    )
    rows, _ = rs.report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["n"] == 2 * rs.N


def test_compare_refuses_a_copy(tmp_path, capsys):
    cs = np.random.default_rng(13).integers(0, rs.N + 1, len(rs.questions()))
    rs.write_run(tmp_path, rs.abbr("m", "0-7", seed=1), rs.DATASET, cs, rs.N)
    _copy(tmp_path, rs.abbr("m", "0-7", seed=1), rs.abbr("m", "0-7", seed=2))
    results = tmp_path / rs.TS / "results"
    paths = (results / rs.abbr("m", "0-7", seed=1), results / rs.abbr("m", "0-7", seed=2))
    code, _, err = rs.run_cli(capsys, "compare", *paths, "--resamples", "200")
    assert code == 2 and "byte-identical copy" in err and err.count("\n") == 1
    # one work dir, the copy named: told why it is not there, not "no run matches"
    code, _, err = rs.run_cli(
        capsys, "compare", tmp_path, tmp_path, "--model-a", rs.abbr("m", "0-7", seed=1),
        "--model-b", rs.abbr("m", "0-7", seed=2), "--resamples", "200",
    )  # fmt: skip
    assert code == 2 and "byte-identical copy" in err and "no run" not in err


def test_grouping_notes_reach_the_json_rows(tmp_path, capsys):
    qs = rs.questions()
    cs = np.random.default_rng(14).integers(0, rs.N + 1, len(qs))
    rs.write_run(tmp_path, rs.abbr("m", "0-7", seed=1), rs.DATASET, cs, rs.N)
    other = [(s, lang, i, text + " (v2)") for s, lang, i, text in qs]
    rs.write_run(tmp_path, rs.abbr("m", "0-7", seed=2), rs.DATASET, cs, rs.N, qs=other)
    rs.write_run(
        tmp_path, rs.abbr("m", "0-7", seed=2), rs.DATASET, cs, rs.N, qs=other, ts="20000101_000000"
    )
    rows, err = rs.report_json(capsys, tmp_path)
    assert len(rows) == 2
    for row in rows:
        assert any("NOT pooled" in note for note in row["notes"])
    seed2 = next(r for r in rows if r["model"] == rs.abbr("m", "0-7", seed=2))
    assert any("several timestamps" in note for note in seed2["notes"])
    assert err.count("NOT pooled") == 1  # one note on stderr, though two rows carry it


def test_an_unmatched_greedy_run_says_so_in_its_json_entry(tmp_path, capsys):
    qs = rs.questions()
    rs.write_run(tmp_path, rs.abbr("m", "0-7"), rs.DATASET, [rs.N // 2] * len(qs), rs.N)
    rs.write_run(
        tmp_path, rs.abbr("other", "0-0", top_p="1-0"), rs.GREEDY_DATASET, [1] * len(qs), 1
    )
    rows, _ = rs.report_json(capsys, tmp_path, greedy=True)
    greedy = next(r for r in rows if r["greedy"])
    assert any("not matched to any sampled row" in note for note in greedy["notes"])
