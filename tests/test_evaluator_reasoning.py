"""GPassKEvaluator on reasoning traces: settings, validation, exact metrics from known counts.

Replica r of question i is a finished trace with the gold after ``</think>`` iff r < c_i;
the others are truncated thoughts whose draft box *matches* the gold (they must count as
wrong) or finished traces with a wrong answer. Metrics are checked against brute force.
"""

from __future__ import annotations

import pytest
from conftest import brute_g_pass
from evaluator_support import replicated, run

from gpassk_oc.evaluators import GPassKEvaluator


def reasoning_predictions(test_set, counts, n):
    q = len(test_set) // n
    preds = []
    for row_index in range(len(test_set)):
        r, i = divmod(row_index, q)
        gold = test_set[row_index]["answer"]
        draft = f"Let me see. Maybe \\boxed{{{gold}}}? I should double-check"
        if r < counts[i]:
            preds.append(f"{draft}.</think>\n\nSo $\\boxed{{{gold}}}$")  # OpenAISDK shape
        elif r % 2:
            preds.append(f"<think>{draft} the carry")  # unclosed <think>: truncated
        else:
            preds.append(draft)  # cut with no tag at all: truncated for a reasoning model
    return preds


def test_truncated_thoughts_never_count_even_when_their_draft_matches(livemath_dir):
    n, ks = 4, [2, 4]
    counts = [4, 3, 0, 1, 2, 2, 0, 4, 1]
    test_set = replicated(livemath_dir, n, ks)
    preds = reasoning_predictions(test_set, counts, n)
    result = run(GPassKEvaluator(reasoning=True), test_set, preds, ks, n)
    assert [d["c"] for d in result["details"]] == counts
    for k in ks:
        for tau in ("0.5", "1.0"):
            exact = sum(brute_g_pass(n, c, k, tau) for c in counts) / len(counts)
            assert result[f"G-Pass@{k}_{tau}"] == pytest.approx(float(exact * 100), abs=1e-12)
    wrong = sum(n - c for c in counts)
    accounting = result["accounting"]
    assert accounting["found_truncated"] == wrong == accounting["no_answer"]
    assert accounting["judge_input_chars"] == 0  # rules mode: nothing shown to a judge
    found = [f for d in result["details"] for f in d["found"]]
    assert found.count("truncated") == wrong and found.count("boxed") == sum(counts)

    # not declared reasoning: the replies with no tag at all are read whole, and their
    # draft box matches the gold; unclosed <think> replies stay truncated
    plain = run(GPassKEvaluator(), test_set, preds, ks, n)
    no_tag = [sum(1 for r in range(c, n) if r % 2 == 0) for c in counts]
    assert [d["c"] for d in plain["details"]] == [c + t for c, t in zip(counts, no_tag)]


def test_custom_think_tags(livemath_dir):
    n = 2
    test_set = replicated(livemath_dir, n, [1, 2])
    q = len(test_set) // n
    preds = [
        f"<reason>x</reason>\\boxed{{{row['answer']}}}" if i < q else "<reason>\\boxed{0}"
        for i, row in enumerate(test_set)
    ]
    evaluator = GPassKEvaluator(think_tags=["<reason>", "</reason>"])
    result = run(evaluator, test_set, preds, [1, 2], n)
    assert [d["c"] for d in result["details"]] == [1] * q
    assert result["accounting"]["found_truncated"] == q


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"reasoning": "true"}, "GPassKEvaluator.reasoning: need True or False, got 'true'"),
        ({"reasoning": None}, "GPassKEvaluator.reasoning: need True or False, got None"),
        ({"think_tags": "<think>"}, "GPassKEvaluator.think_tags: need an (opening, closing)"),
        ({"think_tags": ("", "</think>")}, "GPassKEvaluator.think_tags: the opening tag"),
        ({"think_tags": ("<t>", "<t>")}, "GPassKEvaluator.think_tags: opening and closing"),
    ],
)
def test_bad_settings_fail_at_construction_in_one_line(kw, message):
    with pytest.raises(ValueError) as err:
        GPassKEvaluator(**kw)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
