"""Shared helpers and fixtures of test_evaluator.py, tests/test_evaluator_judge.py (registered in conftest.py)."""

from __future__ import annotations

import json

from gpassk_oc.datasets import LiveMathBenchDataset

READER = dict(input_columns=["prompt"], output_column="answer")


def replicated(livemath_dir, n, k):
    return LiveMathBenchDataset(
        path=str(livemath_dir),
        dataset_splits=["AMC", "CCEE"],
        dataset_languages=["en", "cn"],
        k=k,
        n=n,
        abbr=f"LiveMathBench-v202412-k{k}-r1",
        reader_cfg=READER,
    ).test


def predictions_for(test_set, counts, n):
    """Replica r of question i answers correctly iff r < c_i (a boxed gold or a wrong box)."""
    q = len(test_set) // n
    preds = []
    for row_index in range(len(test_set)):
        r, i = divmod(row_index, q)
        gold = test_set[row_index]["answer"]
        preds.append(f"so $\\boxed{{{gold}}}$" if r < counts[i] else "so \\boxed{-4242}")
    return preds


def run(evaluator, test_set, preds, k, n):
    return evaluator.evaluate(
        k, n, test_set, predictions=preds, references=test_set["answer"], test_set=test_set
    )


def assert_json_plain(value):
    """JSON-serialisable with plain Python types only (no numpy scalars, no NaN)."""
    json.dumps(value, allow_nan=False)
    if isinstance(value, dict):
        for v in value.values():
            assert_json_plain(v)
    elif isinstance(value, list):
        for v in value:
            assert_json_plain(v)
    else:
        assert value is None or type(value) in (bool, int, float, str), type(value)
