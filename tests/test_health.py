"""Run health (core/runs/run_health.py) and its report warnings (report/data/health_warnings.py); the
expected figures are counted by hand from the constructed replies."""

from __future__ import annotations

import pytest

from gpassk_oc.core.runs.results_file import Results, RunInfo
from gpassk_oc.core.runs.run_health import approx_token_count, run_health
from gpassk_oc.core.runs.run_record import RunRecord
from gpassk_oc.core.runs.run_spec import RunSpec
from gpassk_oc.report.data.health_warnings import health_warnings

# q = 3 questions × n = 4 replies
REPLIES = [
    ["same", "same", "same", "same"],  # all identical: 3 duplicates
    ["a", "", "  ", "b" * 30],  # two empty; one long (30 chars ≈ 10 tokens)
    ["x", "y", "x", "z"],  # one duplicate
]
GROUPS = ["AMC/en", "AMC/en", "CCEE/cn"]
CORRECT = [[True, False, True, None], [False, False, False, True], [True] * 4]
FOUND = [["boxed"] * 4, ["none", "none", "none", "truncated"], ["boxed"] * 4]


def test_figures_overall_and_per_group():
    health = run_health(REPLIES, GROUPS, CORRECT, [2, 4], found=FOUND, max_out_len=10)
    assert health["length_basis"] == "approximate" and health["max_out_len"] == 10
    assert health["overall"] == {
        "samples": 12,
        "questions": 3,
        "truncated": 1,  # the long reply is also the unclosed thinking: counted once
        "truncated_thinking": 1,
        "truncated_length": 1,
        "empty": 2,
        "identical_questions": 1,
        "duplicate_responses": 3 + 0 + 1,
        "unjudged": 1,
        "coverage": {"pass@1": [3, 3], "G-Pass@2": [3, 3], "G-Pass@4": [2, 3]},
    }
    amc = health["groups"]["AMC/en"]
    assert (amc["samples"], amc["empty"], amc["identical_questions"], amc["unjudged"]) == (
        8,
        2,
        1,
        1,
    )
    assert health["groups"]["CCEE/cn"]["duplicate_responses"] == 1


def test_length_by_tokenizer_and_switches():
    words = lambda text: len(text.split())  # noqa: E731  (a stand-in tokenizer)
    replies = [["one two three", "one", "one two three", "four five six seven"]]
    health = run_health(replies, ["g"], [[True] * 4], [2], max_out_len=3, count_tokens=words)
    assert health["length_basis"] == "tokenizer" and health["overall"]["truncated_length"] == 3
    off = run_health(replies, ["g"], [[True] * 4], [2], max_out_len=3, length_truncation=False)
    assert off["length_basis"] == "not checked" and off["overall"]["truncated"] == 0
    with pytest.raises(ValueError, match=r"^length_truncation: needs the run's max_out_len"):
        run_health(replies, ["g"], [[True] * 4], [2], length_truncation=True)


def test_approximate_count():
    assert approx_token_count("") == 0
    assert approx_token_count("abcd") == 2  # ceil(4 / 3)
    assert approx_token_count("答案是") == 3  # one per CJK character


def _results(health: dict, temperature) -> Results:
    info = RunInfo(spec=RunSpec.parse([4], [1.0], n=4), num_questions=10)
    record = RunRecord("m", "d", temperature=temperature)
    return Results(info, {}, {}, [], record=record, health=health)


def _overall(**counts) -> dict:
    base = dict.fromkeys(("truncated", "truncated_thinking", "truncated_length", "empty"), 0) | {
        "identical_questions": 0,
        "duplicate_responses": 0,
        "unjudged": 0,
    }
    return {"samples": 40, "questions": 10, **base, **counts}


def test_warnings_cross_thresholds_only():
    quiet = _overall(truncated=3, empty=1, identical_questions=4)  # 7.5%, 2.5%, 40%: below
    assert health_warnings(_results({"overall": quiet}, 1.0), "m/d") == []
    loud = _overall(truncated=4, truncated_length=4, empty=2, identical_questions=5, unjudged=2)
    health = {"overall": loud, "max_out_len": 64, "length_basis": "approximate"}
    lines = health_warnings(_results(health, 1.0), "m/d")
    assert len(lines) == 4
    assert "5 of 10 (50.0%) questions have all 4 replies byte-identical" in lines[0]
    assert "the engine ignores temperature or a fixed seed is sent" in lines[0]
    assert "4 of 40 (10.0%) samples truncated" in lines[1]
    assert "raise max_out_len; G-Pass here measures the budget as much as the model" in lines[1]
    assert "2 of 40 (5.0%) replies are empty" in lines[2]
    assert "2 of 40 (5.0%) samples unjudged" in lines[3]
    # identical replicas are expected when decoding greedily
    assert not any("identical" in w for w in health_warnings(_results(health, 0.0), "m/d"))
