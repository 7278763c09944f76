"""``reasoning='auto'``: the reading rule detected from one evaluation's replies, the
forced settings, and what the results file records (``run.reasoning``).

Every expected rule and reason is written out by hand from the replies of each case.
"""

from __future__ import annotations

import pytest

from gpassk_oc.core.answers.reasoning import (
    ReadingRule,
    ThinkTags,
    check_reasoning_setting,
    reading_rule,
    split_reply,
)
from gpassk_oc.core.runs.results_file import Results, ResultsError
from gpassk_oc.core.runs.run_scoring import ScoringInput, build_results
from gpassk_oc.core.runs.run_spec import RunSpec

FINISHED = "<think>maybe \\boxed{7}</think>So \\boxed{8}."
R1 = "the prompt opened the thought; \\boxed{7}?</think>\\boxed{8}"  # DeepSeek-R1 distills
JOINED = "reasoning_content text</think>The answer is 8."  # OpenAISDK's join
BARE = "reasoning_content cut by the budget, so far \\boxed{8}"  # OpenAISDK: content empty
OPENED = "<think>so far \\boxed{8}, now check"  # opening tag, never closed
PLAIN = "So the answer is \\boxed{8}."


@pytest.mark.parametrize(
    "replies, applied, why",
    [
        # R1-style replies start inside the thinking: only the closing tag tells
        ([R1, R1, BARE], "thinking", "2 of 3 non-empty replies close </think>"),
        ([JOINED, BARE, BARE, BARE], "thinking", "1 of 4 non-empty replies close </think>"),
        # one finished thought is enough: the unclosed and bare replies are truncated
        (
            [FINISHED, OPENED, BARE],
            "thinking",
            "1 of 3 non-empty replies close </think>; 1 open <think> without closing it "
            "(truncated either way)",
        ),
        ([PLAIN, PLAIN, "", "  "], "whole", "0 of 2 non-empty replies close </think>"),
        # a model that only ever opened a thought: whole, but those replies stay truncated
        (
            [OPENED, PLAIN],
            "whole",
            "0 of 2 non-empty replies close </think>; 1 open <think> without closing it "
            "(truncated either way)",
        ),
        # n = 1 and one question: one short reply decides
        (["8"], "whole", "0 of 1 non-empty replies close </think>"),
        (["</think>8"], "thinking", "1 of 1 non-empty replies close </think>"),
        (["", None], "whole", "no non-empty reply"),
        ([], "whole", "no non-empty reply"),
    ],
)
def test_auto_detects_the_rule_from_all_replies(replies, applied, why):
    rule = reading_rule(replies)
    assert rule == ReadingRule("auto", applied, why)
    assert rule.reasoning is (applied == "thinking")


def test_what_each_rule_reads():
    thinking = reading_rule([FINISHED, OPENED, BARE, JOINED])
    read = [split_reply(t, reasoning=thinking.reasoning) for t in (FINISHED, OPENED, BARE, JOINED)]
    assert [(p.answer, p.truncated) for p in read] == [
        ("So \\boxed{8}.", False),
        ("", True),
        ("", True),  # the bare reasoning_content: a thought cut before its tag
        ("The answer is 8.", False),
    ]
    whole = reading_rule([PLAIN, OPENED])
    assert split_reply(PLAIN, reasoning=whole.reasoning).answer == PLAIN
    assert split_reply(OPENED, reasoning=whole.reasoning).truncated


def test_forced_settings_say_so_and_still_count():
    assert reading_rule([PLAIN], True) == ReadingRule(
        True, "thinking", "reasoning=True was set (0 of 1 non-empty replies close </think>)"
    )
    assert reading_rule([FINISHED, PLAIN], False) == ReadingRule(
        False, "whole", "reasoning=False was set (1 of 2 non-empty replies close </think>)"
    )


def test_custom_tags_are_what_is_looked_for():
    tags = ThinkTags("<reason>", "</reason>")
    assert reading_rule([FINISHED], tags=tags).applied == "whole"
    rule = reading_rule(["x</reason>8", "y"], tags=tags)
    assert rule.applied == "thinking" and rule.why == "1 of 2 non-empty replies close </reason>"


@pytest.mark.parametrize("value", ["true", "Auto", 1, 0, None, ["auto"]])
def test_a_setting_is_auto_true_or_false(value):
    with pytest.raises(ValueError, match=r"^where: need 'auto', True or False, got "):
        check_reasoning_setting(value, "where")


def _results(reasoning):
    rows = [{"question_id": "q0", "split": "AMC", "language": "en", "question": "?", "answer": "8"}]
    return build_results(
        ScoringInput(
            spec=RunSpec.parse([1, 2]).at_n(2),
            rows=rows,
            extracted=[["8", None]],
            correct=[[True, False]],
            reasoning=reasoning,
        )
    )


def test_the_results_file_records_the_rule_and_reads_it_back():
    rule = reading_rule([JOINED, BARE])
    data = _results(rule.to_json())
    assert data["run"]["reasoning"] == {
        "setting": "auto",
        "applied": "thinking",
        "why": "1 of 2 non-empty replies close </think>",
    }
    assert Results.from_json(data).info.reasoning == data["run"]["reasoning"]
    forced = _results(reading_rule([PLAIN], False).to_json())
    assert Results.from_json(forced).info.reasoning["setting"] is False


def test_files_without_the_rule_still_read():
    data = _results(None)
    assert "reasoning" not in data["run"]  # absent, as in every file written before
    assert Results.from_json(data).info.reasoning is None
    data["run"]["reasoning"] = None
    assert Results.from_json(data).info.reasoning is None


@pytest.mark.parametrize(
    "value, message",
    [
        ("thinking", "f.json: run.reasoning: need an object with setting, applied and why"),
        (
            {"setting": "yes", "applied": "whole", "why": ""},
            "f.json: run.reasoning.setting: need 'auto', true or false, got 'yes'",
        ),
        (
            {"setting": "auto", "applied": "half", "why": ""},
            "f.json: run.reasoning.applied: need 'thinking' or 'whole', got 'half'",
        ),
        (
            {"setting": True, "applied": "whole", "why": 3},
            "f.json: run.reasoning.why: need a string, got 3",
        ),
    ],
)
def test_a_bad_recorded_rule_is_one_line(value, message):
    data = _results(None)
    data["run"]["reasoning"] = value
    with pytest.raises(ResultsError) as info:
        Results.from_json(data, "f.json")
    assert str(info.value) == message
