"""The server's per-reply facts (core/runs/reply_facts.py), run health by finish reason and
token statistics (core/runs/token_stats.py): expected values by hand or plain arithmetic."""

from __future__ import annotations

import json
import math
import re
import statistics

import pytest

from gpassk_oc.core.runs.reply_facts import (
    ReplyFacts,
    facts_line,
    read_sidecars,
    reply_key,
    sidecar_path,
    stopped_by_length,
    with_reply_facts,
)
from gpassk_oc.core.runs.results_file import Results, ResultsError
from gpassk_oc.core.runs.run_health import run_health
from gpassk_oc.core.runs.token_stats import nearest_rank, token_stats


# --------------------------------------------------------------------------- keys, sidecars
def test_key_survives_the_json_round_trip_opencompass_applies():
    sent = [{"role": "HUMAN", "prompt": "What is 2 + 3?", "extra": ("a", 1)}]
    stored = json.loads(json.dumps(sent))  # tuples become lists, as in predictions/*.json
    assert reply_key(sent, "5") == reply_key(stored, "5")
    assert reply_key(sent, "5") != reply_key(sent, "5 ")
    assert reply_key(sent, "5") != reply_key([{"role": "HUMAN", "prompt": "2 + 4?"}], "5")


def test_sidecar_lines_read_back_and_bad_lines_are_skipped(tmp_path):
    predictions = tmp_path / "tiny_0.json"
    side = sidecar_path(predictions)
    assert side.name == "tiny_0.gpassk-replies.jsonl"
    one = ReplyFacts("length", 40, 12)
    two = ReplyFacts(None, None, 3)
    side.write_text(
        facts_line("a", one) + "not json\n" + '{"no": "key"}\n' + facts_line("b", two) + '{"ke'
    )
    assert read_sidecars([side, tmp_path / "absent.jsonl"]) == {"a": one, "b": two}


@pytest.mark.parametrize(
    "reason, cut",
    [
        ("length", True),
        ("max_tokens", True),
        ("stop", False),
        ("eos_token", False),
        ("content_filter", False),
        (None, None),
        ("banana", None),
    ],
)
def test_finish_reasons(reason, cut):
    assert stopped_by_length(reason) is cut


def test_facts_from_json_are_lenient():
    facts = ReplyFacts.from_json(
        {"finish_reason": "", "prompt_tokens": -1, "completion_tokens": True}
    )
    assert facts == ReplyFacts()


# --------------------------------------------------------------------------- results file
def _results_dict(correct, **facts):
    details = [
        {
            "index": i,
            "question_id": f"q{i}",
            "split": "AMC",
            "language": "en",
            "question_type": "",
            "question": "?",
            "gold": "1",
            "extracted": ["1"] * len(row),
            "correct": row,
        }
        for i, row in enumerate(correct)
    ]
    for name, rows in facts.items():
        for entry, row in zip(details, rows):
            entry[name] = row
    n = len(correct[0])
    return {
        "schema": "gpassk_oc.results/4",
        "pass@1": 50.0,
        "run": {"n": n, "num_questions": len(correct), "ks": [1], "thresholds": [1.0]},
        "details": details,
    }


def test_results_file_keeps_the_facts_and_old_files_still_read():
    data = _results_dict([[True, False]])
    old = Results.from_json(data)
    assert old.questions[0].finish_reason is None and old.questions[0].output_tokens is None
    facts = [[ReplyFacts("stop", 9, 4), None]]
    with_reply_facts(data, facts)
    assert data["details"][0]["finish_reason"] == ["stop", None]
    again = Results.from_json(json.loads(json.dumps(Results.from_json(data).to_json())))
    question = again.questions[0]
    assert (question.finish_reason, question.output_tokens, question.prompt_tokens) == (
        ["stop", None],
        [4, None],
        [9, None],
    )


def test_no_fact_at_all_leaves_the_file_as_it_was():
    data = _results_dict([[True]])
    assert "finish_reason" not in with_reply_facts(data, [[None]])["details"][0]


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("output_tokens", [1], "need one entry per sample (2)"),
        ("output_tokens", [1, -2], "entries must be integers >= 0 or null"),
        ("finish_reason", [1, "stop"], "entries must be strings or null"),
    ],
)
def test_bad_fact_lists_name_the_field(name, value, message):
    data = _results_dict([[True, False]], **{name: [value]})
    with pytest.raises(ResultsError, match=re.escape(f"r.json: details[0].{name}: {message}")):
        Results.from_json(data, "r.json")


# --------------------------------------------------------------------------- health
REPLIES = [["a b", "", "c"], ["d", "e f g", "h"]]


def test_health_counts_truncation_from_the_servers_reasons():
    reasons = [["length", "length", "stop"], ["stop", "eos_token", "length"]]
    health = run_health(
        REPLIES, ["g", "g"], [[True] * 3] * 2, [2], max_out_len=1, finish_reasons=reasons
    )
    assert health["length_basis"] == "finish_reason" and "length_note" not in health
    # 3 "length" replies, the empty one among them: empty AND truncated by its reason;
    # "e f g" is long by characters but the server said it stopped
    assert health["overall"]["truncated_length"] == 3
    assert health["overall"]["empty"] == 1


@pytest.mark.parametrize(
    "reasons, note",
    [
        (
            [["length", None, "stop"], ["stop"] * 3],
            "the server's finish reasons not used: 1 of 6 replies without a finish reason",
        ),
        (
            [["length", "odd", "stop"], ["stop", "weird", "odd"]],
            "the server's finish reasons not used: unknown finish reasons 'odd', 'weird'",
        ),
    ],
)
def test_health_falls_back_to_counting_and_says_why(reasons, note):
    health = run_health(
        REPLIES, ["g", "g"], [[True] * 3] * 2, [2], max_out_len=2, finish_reasons=reasons
    )
    assert health["length_basis"] == "approximate" and health["length_note"] == note
    # approximate: ceil(len / 3) >= 2 ⇔ len >= 4: only "e f g" (5 characters)
    assert health["overall"]["truncated_length"] == 1


def test_finish_reasons_need_no_max_out_len_and_the_switch_still_wins():
    reasons = [["length"] * 3, ["stop"] * 3]
    exact = run_health(REPLIES, ["g", "g"], [[True] * 3] * 2, [2], finish_reasons=reasons)
    assert exact["length_basis"] == "finish_reason" and exact["overall"]["truncated"] == 3
    off = run_health(
        REPLIES, ["g", "g"], [[True] * 3] * 2, [2], finish_reasons=reasons, length_truncation=False
    )
    assert off["length_basis"] == "not checked" and off["overall"]["truncated"] == 0


# --------------------------------------------------------------------------- token stats
def test_token_stats_against_plain_arithmetic():
    tokens = [[5, 7, None, 100], [3, 3, 9, 64]]
    correct = [[True, False, True, None], [True, True, False, False]]
    reasons = [["stop", "stop", None, "length"], ["stop", "stop", "stop", "length"]]
    data = _results_dict(correct, output_tokens=tokens, finish_reason=reasons)
    stats = token_stats(Results.from_json(data).questions)
    counted = [5, 7, 100, 3, 3, 9, 64]
    assert stats["counted"] == 7 and stats["max"] == 100
    assert stats["mean"] == pytest.approx(sum(counted) / 7)
    assert stats["median"] == statistics.median(counted) == 7
    assert stats["p95"] == sorted(counted)[math.ceil(0.95 * 7) - 1] == 100
    assert stats["at_limit"] == 2 and stats["at_limit_share"] == pytest.approx(2 / 7)
    # correct among the counted samples: 5 (T), 3 (T), 3 (T); the unjudged 100 is not
    assert stats["per_correct"] == pytest.approx(sum(counted) / 3)


def test_token_stats_absent_without_counts_and_median_of_even_counts():
    assert token_stats(Results.from_json(_results_dict([[True, False]])).questions) is None
    data = _results_dict([[False, False]], output_tokens=[[2, 5]])
    stats = token_stats(Results.from_json(data).questions)
    assert stats["median"] == 3.5 and stats["per_correct"] is None
    assert stats["at_limit_share"] is None
    assert (
        nearest_rank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 0.95)
        == 19
    )


# --------------------------------------------------------------------------- model side
def test_response_facts_read_what_the_server_sent():
    from types import SimpleNamespace as NS

    from gpassk_oc.models import response_facts

    full = NS(
        choices=[NS(finish_reason="length")],
        usage=NS(prompt_tokens=40, completion_tokens=10),
    )
    assert response_facts(full) == ReplyFacts("length", 40, 10)
    # a server that sends neither usage nor a finish reason: everything unknown
    assert response_facts(NS(choices=[NS(finish_reason=None)], usage=None)) == ReplyFacts()
    assert response_facts(None) == ReplyFacts()
