"""A results folder copied under another seed or model name holds the same samples, not
new ones: `report` leaves it out (pooled like a seed it would double n and narrow every
interval on no new data), `compare` refuses it, and what grouping and greedy matching
decided reaches the JSON rows, not only stderr. Expected values come from the Fraction oracle on the counts."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from report_support import (
    DATASET,
    GREEDY_DATASET,
    TS,
    N,
    abbr,
    oracle_mean,
    questions,
    report_json,
    run_cli,
    write_run,
)


def _copy(root, src: str, dst: str) -> None:
    shutil.copytree(root / TS / "results" / src, root / TS / "results" / dst)


def test_a_copied_run_is_left_out_not_pooled_as_a_seed(tmp_path, capsys):
    cs = np.random.default_rng(11).integers(0, N + 1, len(questions()))
    write_run(tmp_path, abbr("m", "0-7", seed=1), DATASET, cs, N)
    _copy(tmp_path, abbr("m", "0-7", seed=1), abbr("m", "0-7", seed=2))  # "another seed"
    _copy(tmp_path, abbr("m", "0-7", seed=1), abbr("twin", "0-7"))  # another model name
    rows, err = report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["n"] == N  # not 2N or 3N
    assert rows[0]["metrics"]["G-Pass@16_1.0"]["value"] == pytest.approx(
        oracle_mean("G-Pass@16_1.0", [(N, int(c)) for c in cs]), abs=1e-3
    )
    notes = [note for note in rows[0]["notes"] if "byte-identical copy" in note]
    assert len(notes) == 2 and all(note in err for note in notes)
    assert any(abbr("m", "0-7", seed=2) in note for note in notes)
    assert any(abbr("twin", "0-7") in note for note in notes)


def test_two_honest_seeds_with_equal_counts_still_pool(tmp_path, capsys):
    # different samples (another shuffle of the same counts): different files, pooled
    cs = np.random.default_rng(12).integers(0, N + 1, len(questions()))
    write_run(tmp_path, abbr("m", "0-7", seed=1), DATASET, cs, N, rng=np.random.default_rng(1))
    write_run(tmp_path, abbr("m", "0-7", seed=2), DATASET, cs, N, rng=np.random.default_rng(2))
    rows, _ = report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["n"] == 2 * N


def test_compare_refuses_a_copy(tmp_path, capsys):
    cs = np.random.default_rng(13).integers(0, N + 1, len(questions()))
    write_run(tmp_path, abbr("m", "0-7", seed=1), DATASET, cs, N)
    _copy(tmp_path, abbr("m", "0-7", seed=1), abbr("m", "0-7", seed=2))
    results = tmp_path / TS / "results"
    paths = (results / abbr("m", "0-7", seed=1), results / abbr("m", "0-7", seed=2))
    code, _, err = run_cli(capsys, "compare", *paths, "--resamples", "200")
    assert code == 2 and "byte-identical copy" in err and err.count("\n") == 1
    # one work dir, the copy named: told why it is not there, not "no run matches"
    code, _, err = run_cli(
        capsys, "compare", tmp_path, tmp_path, "--model-a", abbr("m", "0-7", seed=1),
        "--model-b", abbr("m", "0-7", seed=2), "--resamples", "200",
    )  # fmt: skip
    assert code == 2 and "byte-identical copy" in err and "no run" not in err


def test_grouping_notes_reach_the_json_rows(tmp_path, capsys):
    qs = questions()
    cs = np.random.default_rng(14).integers(0, N + 1, len(qs))
    write_run(tmp_path, abbr("m", "0-7", seed=1), DATASET, cs, N)
    other = [(s, lang, i, text + " (v2)") for s, lang, i, text in qs]
    write_run(tmp_path, abbr("m", "0-7", seed=2), DATASET, cs, N, qs=other)
    write_run(tmp_path, abbr("m", "0-7", seed=2), DATASET, cs, N, qs=other, ts="20000101_000000")
    rows, err = report_json(capsys, tmp_path)
    assert len(rows) == 2
    for row in rows:
        assert any("NOT pooled" in note for note in row["notes"])
    seed2 = next(r for r in rows if r["model"] == abbr("m", "0-7", seed=2))
    assert any("several timestamps" in note for note in seed2["notes"])
    assert err.count("NOT pooled") == 1  # one note on stderr, though two rows carry it


def test_an_unmatched_greedy_run_says_so_in_its_json_entry(tmp_path, capsys):
    qs = questions()
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [N // 2] * len(qs), N)
    write_run(tmp_path, abbr("other", "0-0", top_p="1-0"), GREEDY_DATASET, [1] * len(qs), 1)
    rows, _ = report_json(capsys, tmp_path, greedy=True)
    greedy = next(r for r in rows if r["greedy"])
    assert any("not matched to any sampled row" in note for note in greedy["notes"])
