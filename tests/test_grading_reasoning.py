"""Grading reasoning traces: only the answer part is read, a truncated thought is wrong and
never judged, the judge sees a bounded excerpt, each distinct reply is read once.

Expected verdicts and sizes are written by hand from the replies below.
"""

import pytest
from judge_server import JudgeServer

from gpassk_oc.core.judging import decisions
from gpassk_oc.core.judging.grading import GradingPolicy, grade
from gpassk_oc.core.judging.judge import JudgeConfig

Q = "Compute 3+5."
CLOSED = "<think>try \\boxed{7}? no</think>So \\boxed{8}."  # the draft 7 is not the answer
NO_TAG = "Adding: 3+5, so \\boxed{8}"  # finished for a plain model; cut for a reasoning one
UNCLOSED = "<think>so far \\boxed{8} matches, now check"  # cut while thinking: wrong
OAI_SDK = "reasoning_content here \\boxed{9}</think>The answer is 8."  # rc + '</think>' + content


def items(*replies: str) -> list[dict]:
    return [{"question": Q, "gold": "8", "language": "en", "responses": list(replies)}]


@pytest.mark.parametrize(
    "reasoning, expected, found",
    [
        (False, [True, True, False, True], ["boxed", "boxed", "truncated", "statement"]),
        (True, [True, False, False, True], ["boxed", "truncated", "truncated", "statement"]),
    ],
)
def test_rules_mode_reads_the_answer_part_only(reasoning, expected, found):
    res = grade(
        items(CLOSED, NO_TAG, UNCLOSED, OAI_SDK),
        GradingPolicy(check="rules", progress=False, reasoning=reasoning),
    )
    assert res.correct == [expected]
    assert res.found == [found]
    truncated = found.count("truncated")
    assert res.counts["found_truncated"] == truncated
    assert res.counts["no_answer"] == truncated  # scored wrong without any check
    assert [s for s, f in zip(res.source[0], found) if f == "truncated"] == [
        "no_answer"
    ] * truncated
    assert res.extracted[0][0] == "8" and res.extracted[0][2] is None


def test_the_default_reads_like_the_evaluator():
    """GradingPolicy() reads as the evaluator does (reasoning='auto'): one rule from all
    replies of the call. A reply closes a think tag, so the model thinks and a bare
    reply is a thought cut short (its boxed 8 is a draft): wrong, never correct."""
    policy = GradingPolicy(check="rules", progress=False)
    assert policy.reasoning == "auto"
    res = grade(items(CLOSED, NO_TAG), policy)
    assert res.correct == [[True, False]] and res.found == [["boxed", "truncated"]]
    assert res.reading is not None and res.reading.applied == "thinking"
    # the rule spans every item given: the tag in the first question decides the second's
    across = grade(items(CLOSED) + items(NO_TAG), policy)
    assert across.correct == [[True], [False]] and across.source[1] == ["no_answer"]
    # no reply closes a tag: a plain model, read whole
    plain = grade(items(NO_TAG, NO_TAG), policy)
    assert plain.correct == [[True, True]] and plain.reading.applied == "whole"


def test_custom_tags_in_the_policy():
    reply = "[T]draft \\boxed{7}[/T]final \\boxed{8}"
    res = grade(
        items(reply, "[T]\\boxed{8}"),
        GradingPolicy(check="rules", progress=False, think_tags=("[T]", "[/T]")),
    )
    assert res.correct == [[True, False]] and res.found == [["boxed", "truncated"]]


def _judge_policy(url: str, check: str, reasoning: bool = True) -> GradingPolicy:
    return GradingPolicy(
        check=check,
        judge=JudgeConfig(urls=[url], model="judge", backoff_base=0.001, backoff_max=0.01),
        progress=False,
        reasoning=reasoning,
    )


@pytest.mark.parametrize("check", ["cascade", "judge"])
def test_the_judge_sees_the_answer_part_bounded_and_never_a_truncated_reply(check):
    long_answer = "y" * 5000
    replies = [
        "<think>secret draft \\boxed{8}</think>The answer is \\text{eight}.",
        "<think>secret draft \\boxed{8} still thinking",  # truncated: never judged
        f"<think>secret</think>\\boxed{{{long_answer}}}",
    ]
    excerpt_line = "[… the first 1000 characters of the reply are not shown …]"
    truth = {(Q, "\\text{eight}"): True, (Q, "y" * 4000): False}
    with JudgeServer(truth) as srv:
        res = grade(items(*replies), _judge_policy(srv.url, check))
    assert res.correct == [[True, False, False]]
    assert res.found == [["statement", "truncated", "boxed"]]
    assert res.source[0][1] == "no_answer"
    assert srv.unknown == [] and dict(srv.calls) == {pair: 1 for pair in truth}
    prompts = [prompt for _, prompt, _ in srv.received]
    assert not any("secret" in p or "still thinking" in p for p in prompts)
    assert sum(excerpt_line in p for p in prompts) == 1
    shown = [len("\\text{eight}"), len(excerpt_line) + 1 + 4000]
    assert res.counts["judge_input_chars"] == sum(shown)
    assert res.counts["judge_input_max"] == max(shown)


def test_rules_mode_shows_nothing_to_a_judge():
    res = grade(items(CLOSED, UNCLOSED), GradingPolicy(check="rules", progress=False))
    assert (res.counts["judge_input_chars"], res.counts["judge_input_max"]) == (0, 0)


def test_each_distinct_reply_is_read_once(monkeypatch):
    calls = []
    real = decisions.extract_reply

    def counting(text, **kw):
        calls.append(text)
        return real(text, **kw)

    monkeypatch.setattr(decisions, "extract_reply", counting)
    replies = [CLOSED, UNCLOSED] * 3
    res = grade(items(*replies) * 2, GradingPolicy(check="rules", progress=False))
    assert sorted(calls) == sorted([CLOSED, UNCLOSED])
    assert res.counts["found_truncated"] == 6 and res.counts["samples"] == 12


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"reasoning": "yes"}, "GradingPolicy.reasoning: need 'auto', True or False, got 'yes'"),
        ({"reasoning": 1}, "GradingPolicy.reasoning: need 'auto', True or False, got 1"),
        ({"think_tags": ("<t>", "<t>")}, "GradingPolicy.think_tags: opening and closing tags"),
        ({"think_tags": ("", "</t>")}, "GradingPolicy.think_tags: the opening tag must be"),
    ],
)
def test_bad_reasoning_settings_fail_in_one_line(kw, message):
    with pytest.raises(ValueError) as err:
        GradingPolicy(check="rules", **kw)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
