"""gpassk-oc report / compare / plots on synthetic OpenCompass work dirs written in
tmp_path. Expected table values are recomputed here from the synthetic c's with an
independent Fraction oracle."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from report_support import (
    DATASET,
    GREEDY_DATASET,
    PER_SPLIT,
    TS,
    N,
    abbr,
    oracle_mean,
    questions,
    report_json,
    run_cli,
    write_run,
)


# --------------------------------------------------------------------------- partial runs
def test_partial_runs_are_noted_not_crashed(workdir, capsys):
    root, cs = workdir
    qs = questions()
    rng = np.random.default_rng(3)
    # a model with fewer questions (one split×language missing)
    short = abbr("mistral-7b", "0-7")
    write_run(
        root, short, DATASET, rng.integers(0, N + 1, len(qs) - PER_SPLIT), N, qs=qs[:-PER_SPLIT]
    )
    # a results file without details
    write_run(
        root,
        abbr("phi-3", "0-7"),
        DATASET,
        [1] * len(qs),
        N,
        details=False,
        top={"mG-Pass@16": 12.0},
    )
    # predictions but no results (evaluation never ran)
    pred = root / TS / "predictions" / abbr("gemma-9b", "0-7")
    pred.mkdir(parents=True)
    (pred / f"{DATASET}_0.json").write_text("{}")
    rows, err = report_json(capsys, root)
    models = {r["model"]: r for r in rows}
    assert short in models and abbr("phi-3", "0-7") not in models
    assert models[short]["num_questions"] == len(qs) - PER_SPLIT
    assert any(
        f"covers {len(qs) - PER_SPLIT}/{len(qs)} questions" in n for n in models[short]["notes"]
    )
    assert "phi-3" in err and "no per-question details" in err
    assert "gemma-9b" in err and "no results file" in err
    # the short row is averaged over its own questions only
    assert models[short]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(
        oracle_mean(
            "mG-Pass@16",
            [(N, int(c)) for c in json_cs(root / TS / "results" / short / f"{DATASET}.json")],
        ),
        abs=1e-3,
    )


def json_cs(path: Path) -> list[int]:
    return [d["c"] for d in json.loads(path.read_text())["details"]]


def test_unjudged_samples_reduce_n_and_c_is_read_from_correct_lists(tmp_path, capsys):
    cs = np.random.default_rng(1).integers(0, 41, len(questions()))
    write_run(tmp_path, abbr("m", "0-7"), DATASET, cs, 40, unjudged=8)  # 40 judged of 48
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["n"] == 40
    assert rows[0]["metrics"]["G-Pass@16_0.5"]["value"] == pytest.approx(
        oracle_mean("G-Pass@16_0.5", [(40, int(c)) for c in cs]), abs=1e-3
    )


def test_top_level_numbers_are_cross_checked_not_trusted(tmp_path, capsys):
    cs = np.random.default_rng(2).integers(0, N + 1, len(questions()))
    true_mg = oracle_mean("mG-Pass@16", [(N, int(c)) for c in cs])
    write_run(
        tmp_path,
        abbr("m", "0-7"),
        DATASET,
        cs,
        N,
        top={
            "mG-Pass@16": true_mg + 5,
            "G-Pass@16_0.5": oracle_mean("G-Pass@16_0.5", [(N, int(c)) for c in cs]),
        },
    )
    rows, err = report_json(capsys, tmp_path)
    assert rows[0]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(true_mg, abs=1e-3)
    assert "top-level mG-Pass@16" in err and "G-Pass@16_0.5 =" not in err


def test_seeds_pool_when_questions_match_and_refuse_otherwise(tmp_path, capsys):
    rng = np.random.default_rng(4)
    qs = questions()
    c1, c2 = rng.integers(0, N + 1, len(qs)), rng.integers(0, N + 1, len(qs))
    write_run(tmp_path, abbr("m", "0-7", seed=1), DATASET, c1, N)
    write_run(tmp_path, abbr("m", "0-7", seed=2), DATASET, c2, N)
    rows, _ = report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["n"] == 2 * N and rows[0]["setting"]["seeds"] == [1, 2]
    assert rows[0]["model"] == "m_t0-7_p0-95_k-1_rp1-0_rs1+2_l8192"
    assert rows[0]["metrics"]["G-Pass@16_1.0"]["value"] == pytest.approx(
        oracle_mean("G-Pass@16_1.0", [(2 * N, int(a + b)) for a, b in zip(c1, c2)]), abs=1e-3
    )
    # a third seed on a different dataset version (same indices, other question texts)
    other = [(s, lang, i, text + " (v2)") for s, lang, i, text in qs]
    write_run(tmp_path, abbr("m", "0-7", seed=3), DATASET, c1, N, qs=other)
    rows, err = report_json(capsys, tmp_path)
    assert len(rows) == 3 and "NOT pooled" in err and "question sets differ" in err
    assert all(r["n"] == N for r in rows)


def test_latest_timestamp_wins(tmp_path, capsys):
    qs = questions()
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [0] * len(qs), N, ts="20261122_010000")
    write_run(tmp_path, abbr("m", "0-7"), DATASET, [N] * len(qs), N, ts="20261122_020000")
    rows, err = report_json(capsys, tmp_path)
    assert len(rows) == 1 and rows[0]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(100)
    assert "several timestamps" in err
    # a timestamp dir or its results dir work as inputs too
    for path in (tmp_path / "20261122_010000", tmp_path / "20261122_010000" / "results"):
        rows, _ = report_json(capsys, path)
        assert rows[0]["metrics"]["mG-Pass@16"]["value"] == pytest.approx(0)


def test_no_runs_is_an_error(tmp_path, capsys):
    code, _, err = run_cli(capsys, "report", tmp_path)
    assert code == 2 and err == (
        f"error: no usable runs found under {tmp_path}: {tmp_path}: no "
        "results/{model}/{dataset}.json files found\n"
    )


def test_per_split_top_level_numbers_are_cross_checked(tmp_path, capsys):
    qs = questions()
    cs = np.random.default_rng(5).integers(0, N + 1, len(qs))
    amc_en = [(N, int(c)) for q, c in zip(qs, cs) if (q[0], q[1]) == ("AMC", "en")]
    good = oracle_mean("G-Pass@16_1.0", amc_en)
    write_run(
        tmp_path,
        abbr("m", "0-7"),
        DATASET,
        cs,
        N,
        top={"AMC_en/G-Pass@16_1.0": good, "AMC_en/mG-Pass@16": 99.0},
        record=False,  # a schema-1 file
    )
    _, err = report_json(capsys, tmp_path)
    # a schema-1 file: its AMC_en/… keys are read as the group AMC/en
    assert "top-level AMC/en/mG-Pass@16 = 99.00" in err and "AMC/en/G-Pass@16_1.0" not in err


def test_details_without_split_or_language_give_only_the_overall_table(tmp_path, capsys):
    qs = [("", "", i, f"problem {i}") for i in range(10)]
    write_run(tmp_path, "plain-model", "my-dataset", list(range(10)), N, qs=qs)
    rows, _ = report_json(capsys, tmp_path)
    assert rows[0]["model"] == "plain-model" and rows[0]["setting"] is None
    assert rows[0]["splits"] == {} and rows[0]["k"] == 16
    code, out, _ = run_cli(capsys, "report", tmp_path, "--resamples", "100")
    assert code == 0 and out.count("## my-dataset") == 1 and "| plain-model | — | 48 | 10 |" in out


def test_greedy_only_runs_give_a_greedy_table(tmp_path, capsys):
    rng = np.random.default_rng(9)
    cs = {m: rng.integers(0, 2, len(questions())) for m in ("qwen-7b", "llama-8b")}
    for model, c in cs.items():
        write_run(tmp_path, abbr(model, "0-0", top_p="1-0"), GREEDY_DATASET, c, 1)
    code, out, err = run_cli(capsys, "report", tmp_path, "--resamples", "200")
    assert code == 0, err
    assert "## Greedy runs" in out and "| Model | Dataset | Q | accuracy |" in out
    rows, _ = report_json(capsys, tmp_path, greedy=True)
    assert {r["model"]: r["metrics"]["accuracy"]["value"] for r in rows} == {
        abbr(m, "0-0", top_p="1-0"): pytest.approx(100 * c.mean(), abs=1e-4) for m, c in cs.items()
    }
