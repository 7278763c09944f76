"""Reasoning traces: split at the last closing think tag, truncation, tags, judge excerpt.

Every case is a shape real runs produce (see gpassk_oc/core/answers/reasoning.py); expected
parts are written by hand from the text.
"""

import pytest

from gpassk_oc.core.answers.extraction import FOUND_KINDS, extract_reply
from gpassk_oc.core.answers.reasoning import (
    DEFAULT_THINK_TAGS,
    ThinkTags,
    judge_excerpt,
    split_reply,
)

THINK = "Let me try 7... that gives \\boxed{7}? No, recheck."


@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize(
    "text, answer, truncated",
    [
        # both tags, answer after the closing one
        (f"<think>{THINK}</think>\nSo \\boxed{{8}}.", "\nSo \\boxed{8}.", False),
        # OpenAISDK: reasoning_content + '</think>' + content (no opening tag)
        (f"{THINK}</think>The answer is 8.", "The answer is 8.", False),
        # R1-distill: opening tag in the prompt, the reply holds the closing tag only
        (f"{THINK}\n</think>\n\n**Final Answer** 8", "\n\n**Final Answer** 8", False),
        # several thoughts: only the part after the LAST closing tag
        ("<think>a</think>x<think>b</think>y", "y", False),
        # a thought opened after the last close and never closed
        ("<think>a</think>x<think>b \\boxed{8}", "", True),
        # an unclosed <think> is truncated for any model
        (f"<think>{THINK} \\boxed{{8}}", "", True),
        # closed thought with nothing after it: empty answer, not truncated
        (f"<think>{THINK}</think>", "", False),
    ],
)
def test_split_cases_independent_of_declaration(text, answer, truncated, reasoning):
    parts = split_reply(text, reasoning=reasoning)
    assert (parts.answer, parts.truncated) == (answer, truncated)
    assert parts.answer_chars == len(answer)
    assert parts.thinking_chars == len(text) - len(answer)


def test_no_tags_depends_on_the_declaration():
    text = "We compute 3 + 5 = 8, so \\boxed{8}"
    plain = split_reply(text, reasoning=False)
    assert (plain.answer, plain.truncated, plain.thinking_chars) == (text, False, 0)
    # a reasoning model cut before its closing tag (OpenAISDK returns reasoning_content alone)
    cut = split_reply(text, reasoning=True)
    assert (cut.answer, cut.truncated, cut.thinking_chars, cut.answer_chars) == (
        "",
        True,
        len(text),
        0,
    )


@pytest.mark.parametrize("text", ["", "   \n ", None])
@pytest.mark.parametrize("reasoning", [False, True])
def test_an_empty_reply_is_empty_not_truncated(text, reasoning):
    parts = split_reply(text, reasoning=reasoning)
    assert parts.truncated is False and parts.answer.strip() == ""


def test_custom_tags():
    tags = ThinkTags("◁think▷", "◁/think▷")
    text = "◁think▷draft \\boxed{1}◁/think▷final \\boxed{2}"
    assert split_reply(text, reasoning=True, tags=tags).answer == "final \\boxed{2}"
    # the default tags are not these: the whole reply is the answer for a plain model
    assert split_reply(text, reasoning=False).answer == text
    assert split_reply("◁think▷draft", reasoning=False, tags=tags).truncated
    # an opening tag that is a substring of the closing one is only looked for after it
    sub = ThinkTags("think", "/think")
    assert split_reply("think a /think b", reasoning=True, tags=sub).answer == " b"


@pytest.mark.parametrize(
    "value, message",
    [
        (("", "</think>"), "think_tags: the opening tag must be a non-empty string"),
        (("<think>", "  "), "think_tags: the closing tag must be a non-empty string"),
        (("<t>", "<t>"), "think_tags: opening and closing tags must differ"),
        ("<think>", "think_tags: need an (opening, closing) pair"),
        (("a", "b", "c"), "think_tags: need an (opening, closing) pair"),
        ((1, "</think>"), "think_tags: the opening tag must be a non-empty string"),
    ],
)
def test_bad_tags_fail_in_one_line(value, message):
    with pytest.raises(ValueError) as err:
        ThinkTags.coerce(value)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_coerce_names_the_setting_and_accepts_lists():
    assert ThinkTags.coerce(["<a>", "</a>"]) == ThinkTags("<a>", "</a>")
    assert ThinkTags.coerce(DEFAULT_THINK_TAGS) is DEFAULT_THINK_TAGS
    with pytest.raises(ValueError, match=r"^evaluator\.think_tags: opening and closing"):
        ThinkTags.coerce(("x", "x"), "evaluator.think_tags")


def test_judge_excerpt_keeps_the_end_and_says_what_is_cut():
    short = "x" * 10
    assert judge_excerpt(short, limit=10) == short
    text = "a" * 25 + "TAIL"
    shown = judge_excerpt(text, limit=4)
    assert shown.endswith("\nTAIL")
    assert "first 25 characters of the reply are not shown" in shown


def test_extract_reply_reads_only_the_answer_part():
    # the draft box inside the thinking must not be the answer
    closed = extract_reply("<think>maybe \\boxed{7}</think>Hence the answer is 8.")
    assert (closed.answer, closed.found) == ("8", "statement")
    truncated = extract_reply("<think>so far \\boxed{8} matches")
    assert truncated == (None, "truncated", None)
    declared = extract_reply("so far \\boxed{8} matches", reasoning=True)
    assert declared == (None, "truncated", None)
    assert extract_reply("so far \\boxed{8}", reasoning=False).answer == "8"
    assert "truncated" in FOUND_KINDS


def test_real_trace_shapes_from_the_labelled_set():
    """Row shapes of ../shared/answer-checking/reasoning-dev.jsonl, abridged by hand."""
    finished = (
        "Okay, so the rate ... the answer should be 6.17%.\n\n**Final Answer**\n"
        "The equivalent annual interest rate is \\boxed{6.17}.\n</think>\n\n"
        "To find the rate ... \\[ r = 6.17 \\]\n\nThus \\(\\boxed{6.17}\\)"
    )
    assert extract_reply(finished, reasoning=True).answer == "6.17"
    cut = "Okay, so base 9 ... Result: \\(656_9\\).\n\nRightmost digit: 6 + 8 = 14. 14 ÷ 9 ="
    assert extract_reply(cut, reasoning=True).found == "truncated"
