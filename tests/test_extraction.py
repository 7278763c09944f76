"""Extraction from what models write: boxed → statement → fallback → none (hand-written cases)."""

import pytest

from gpassk_oc.core.answers.extraction import FOUND_KINDS, extract_answer, extract_reply
from gpassk_oc.core.judging.decisions import rule_decisions


@pytest.mark.parametrize(
    "text, answer, found",
    [
        # boxed wins over any later statement
        ("The answer is 3.\nSo $\\boxed{4}$.", "4", "boxed"),
        # English statements
        ("Final Answer: The final answer is 15. I hope it is correct.", "15", "statement"),
        ("**Answer:** 42", "42", "statement"),
        ("**Final Answer**\n\\[ \\frac{3}{4} \\]", r"\frac{3}{4}", "statement"),
        ("Thus the answer is: \n\\[ x = 5 \\]", "x = 5", "statement"),
        ("so the answer is 3.5.", "3.5", "statement"),
        ("My answer would be $\\sqrt{2}$ in the end.", r"\sqrt{2}", "statement"),
        ("The final answer is $x=1$ and $y=2$.", "x=1, y=2", "statement"),  # formulas in prose
        # Chinese statements
        ("【解析】略。<eoe>\n【答案】$x^2+y^2=2$<eoa>", "x^2+y^2=2", "statement"),
        ("答案：$\\frac{1}{2}$", r"\frac{1}{2}", "statement"),
        ("故答案为 $-3$。", "-3", "statement"),
        ("最终答案是 12。", "12", "statement"),
        ("所以答案为：北京", "北京", "statement"),
        (
            "【答案】首先，我们解这个方程组。得到 x=100。<eoa>",
            "100",
            "statement",
        ),  # prose: its last value
        ("【答案】解方程得到n=8<eoa>", "8", "statement"),
        ("由以上分析，故选：B", "B", "statement"),  # multiple choice
        ("正确答案是 C。", "C", "statement"),
        ("Comparing the options, the correct option is (D).", "(D)", "statement"),
        # last-resort fallback: the final sentence that has math
        ("Work.\n\nTherefore, the length of the red rope is 20 centimeters.", "20", "fallback"),
        ("Therefore, Freda used **12 tomatoes** to make her batch.", "12", "fallback"),
        ("Hence, \\(AC = 25\\) cm.", "25", "fallback"),
        ("Therefore, \\(x^3 = 12\\).", "12", "fallback"),
        ("Therefore, the customer paid $37 on this shopping trip.", "37", "fallback"),
        ("So the value of \\(n\\) is \\(20\\).", "20", "fallback"),  # a number, not a name
        ("The total is $9 \\times 10 = 90$.", "90", "fallback"),  # right-hand side
        (
            "Hence, the solution is \\(f(n) = n\\) for all \\(n\\). It holds for all \\(x\\) and \\(y\\).",
            "f(n) = n",
            "fallback",
        ),  # a function; bare letters skipped
        ("Thus \\(f(2) = 5\\).", "5", "fallback"),  # a value of the function
        ("Work.\n\nSo it depends on \\(x\\) only.", "x", "fallback"),  # a letter when nothing else
        ("So there's a 10% chance.", "10%", "fallback"),
        (
            "The answer is below.\n\nThe area is 10 square units.\n\nI hope this helps!",
            "10",
            "fallback",
        ),
        # nothing
        ("I give up.", None, "none"),
        ("", None, "none"),
        (None, None, "none"),
        (r"\boxed{}", None, "none"),
    ],
)
def test_extract_answer(text, answer, found):
    got = extract_answer(text)
    assert (got.answer, got.found) == (answer, found)
    assert got.found in FOUND_KINDS


def test_candidate_is_the_answer_or_the_last_paragraph():
    boxed = extract_answer("Reasoning.\n\nSo $\\boxed{7}$.")
    assert boxed.candidate == "7"
    text = "Step one: 3 + 4 = 7.\n\nTherefore, the length of the red rope is 20 centimeters."
    assert (
        extract_answer(text).candidate == "Therefore, the length of the red rope is 20 centimeters."
    )
    # no answer found: the judge still sees how the reply ends (a prose answer has no formula)
    none = extract_answer("Lots of thinking.\n\nI give up.")
    assert (none.answer, none.found, none.candidate) == (None, "none", "I give up.")
    assert extract_answer("").candidate is None and extract_answer(" \n ").candidate is None


def test_a_statement_far_from_the_end_is_not_the_final_word():
    tail = "\n\nLet me double-check this with another approach. " + "Blah blah. " * 80
    got = extract_answer("So the answer is 12." + tail + "\n\nHence the count is 14")
    assert (got.answer, got.found) == ("12", "fallback")  # its answer, a guess's standing
    assert got.candidate == "Hence the count is 14"  # the judge sees the ending
    near = extract_answer("Work.\n\nSo the answer is 12.\n\nI hope it is correct.")
    assert (near.answer, near.found) == ("12", "statement")


# a reply cut inside its answer box: the last box opened with a brace never closes
CUT_IN_BOX = [
    "Thus \\boxed{4",
    "So the area is $\\boxed{4\\sqrt{",
    "Hence $x = \\fbox{\\frac{1}{2",
    "The answer is \\boxed",  # cut right at the opener
    "Work: \\boxed{4}.\n\nSo the final answer is \\boxed{4",  # a restatement cut mid-box
    "\\boxed{3} and \\boxed{4",  # the last of a multi-part answer
]


@pytest.mark.parametrize("text", CUT_IN_BOX)
def test_a_reply_cut_inside_its_answer_box_has_no_answer(text):
    assert extract_answer(text) == (None, "truncated", None)
    for reasoning in (False, True):
        reply = "<think>so 4 it is</think>\n\n" + text
        assert extract_reply(reply, reasoning=reasoning) == (None, "truncated", None)


@pytest.mark.parametrize("check", ["rules", "cascade", "judge"])
def test_a_reply_cut_inside_its_answer_box_is_never_judged(check):
    replies = [
        "<think>t</think>\n\nSo the area is \\boxed{4",
        "<think>t</think>$x = \\boxed{4\\sqrt{",
    ]
    got = rule_decisions([{"gold": "4", "responses": replies}], check, reasoning=True)
    assert got.extracted == [[None, None]] and got.found == [["truncated"] * 2]
    assert got.decision == [["no_answer"] * 2] and got.candidates == [[None, None]]
    plain = rule_decisions([{"gold": "4", "responses": ["Thus \\boxed{4"]}], check)
    assert plain.decision == [["no_answer"]] and plain.counts["found_truncated"] == 1


@pytest.mark.parametrize(
    "text, answer",
    [
        ("\\boxed{4}\nthen \\boxed 5", "5"),  # a bare box is complete
        ("a slip \\boxed{3 \nso \\boxed{4}", "4"),  # an unclosed box before the last one
        ("\\boxedx{3 and so \\boxed{4}", "4"),  # another macro's brace is not a box
        ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),  # escaped braces are no braces
    ],
)
def test_a_closed_last_box_is_the_answer(text, answer):
    assert (extract_answer(text).answer, extract_answer(text).found) == (answer, "boxed")


def test_long_last_paragraph_is_cut_at_a_line_start():
    text = "\n".join(f"line {i} with value {i}" for i in range(400))
    got = extract_answer(text)
    assert got.answer == "399" and got.found == "fallback"
    assert len(got.candidate) <= 1200 and got.candidate.startswith("line ")
    assert got.candidate.endswith("line 399 with value 399")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("\\boxed{}$()[].,:=*\n 12x答案【】为是故最终 answer is The")),
        max_size=80,
    )
)
def test_extraction_never_raises_and_says_how(text):
    got = extract_answer(text)
    assert got.found in FOUND_KINDS
    assert (got.answer is None) == (got.found in ("none", "truncated"))
    assert got.answer is None or (isinstance(got.answer, str) and got.answer.strip())
