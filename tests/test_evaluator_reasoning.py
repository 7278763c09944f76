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

    # the default detects the thinking (some replies close </think>): the same reading
    auto = run(GPassKEvaluator(), test_set, preds, ks, n)
    assert [d["c"] for d in auto["details"]] == counts
    closed = sum(counts)  # replicas r < c_i are the finished traces
    assert auto["run"]["reasoning"] == {
        "setting": "auto",
        "applied": "thinking",
        "why": f"{closed} of {n * len(counts)} non-empty replies close </think>; "
        f"{sum(1 for c in counts for r in range(c, n) if r % 2)} open <think> without "
        "closing it (truncated either way)",
    }

    # forced whole: the replies with no tag at all are read whole, and their
    # draft box matches the gold; unclosed <think> replies stay truncated
    plain = run(GPassKEvaluator(reasoning=False), test_set, preds, ks, n)
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
        (
            {"reasoning": "true"},
            "GPassKEvaluator.reasoning: need 'auto', True or False, got 'true'",
        ),
        ({"reasoning": None}, "GPassKEvaluator.reasoning: need 'auto', True or False, got None"),
        ({"think_tags": "<think>"}, "GPassKEvaluator.think_tags: need an (opening, closing)"),
        ({"think_tags": ("", "</think>")}, "GPassKEvaluator.think_tags: the opening tag"),
        ({"think_tags": ("<t>", "<t>")}, "GPassKEvaluator.think_tags: opening and closing"),
    ],
)
def test_bad_settings_fail_at_construction_in_one_line(kw, message):
    with pytest.raises(ValueError) as err:
        GPassKEvaluator(**kw)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def _warnings(evaluator, test_set, preds, n):
    from gpassk_oc.log import logger

    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(m.record["message"]), level="WARNING")
    try:
        result = run(evaluator, test_set, preds, [1, 2], n)
    finally:
        logger.remove(sink)
    return result, [line for line in lines if "closing think tag" in line]


def test_reasoning_with_no_closing_tag_anywhere_warns_once(livemath_dir):
    # an o-series model's replies: the answer alone, no think tags; reasoning=True zeros them
    n = 2
    test_set = replicated(livemath_dir, n, [1, 2])
    preds = [f"So $\\boxed{{{row['answer']}}}$" for row in test_set]
    preds[0] = ""  # an empty reply says nothing about the setting
    result, lines = _warnings(GPassKEvaluator(reasoning=True), test_set, preds, n)
    assert all(d["c"] == 0 for d in result["details"])  # the silent zero being warned about
    assert len(lines) == 1 and "\n" not in lines[0]
    for words in (
        f"none of the {len(preds) - 1} non-empty replies",
        "'</think>'",
        "reasoning=False",
    ):
        assert words in lines[0]
    # one finished thought is enough to trust the setting; without reasoning, no warning
    preds[1] = "x</think>" + preds[1]
    assert _warnings(GPassKEvaluator(reasoning=True), test_set, preds, n)[1] == []
    preds[1] = preds[1].replace("x</think>", "")
    assert _warnings(GPassKEvaluator(), test_set, preds, n)[1] == []
    tags = ["<r>", "</r>"]  # the setting's own closing tag is the one looked for
    named = _warnings(GPassKEvaluator(reasoning=True, think_tags=tags), test_set, preds, n)[1]
    assert len(named) == 1 and "'</r>'" in named[0]
