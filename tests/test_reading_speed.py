"""Reading a reply (split + extraction) is linear in its length, and the linear brace
matcher agrees with a naive scan.

Adversarial replies are repetition loops a model writes when it runs into its token budget.
The bound per 200k-character reply is generous (0.5 s; the goal is 50 ms on an idle
machine, the test machine is shared); growth from 50k to 200k characters must stay well
under the 16x a quadratic reader shows.
"""

import random
import time

import pytest

from gpassk_oc.core.answers.boxes import _closers, boxed_answers
from gpassk_oc.core.answers.extraction import extract_answer, extract_reply

UNITS = {
    "unclosed boxes": "\\boxed{",
    "unclosed fbox with text": "\\fbox{ x + ",
    "opening braces": "{",
    "closing braces": "}",
    "dollars": "$",
    "inline openers": "\\(",
    "display openers": "\\[",
    "bold markers": "**",
    "pointer statements": "The answer is below. ",
    "answer markers": "Answer: ",
    "chinese markers": "答案：首先，",
    "spaced marker": "answer" + " " * 997,
    "long line": "x = 1 + ",
    "numbers": "12, ",
    "sentence dots": "1. ",
    "cjk with commas": "中a，",
    "think tags": "<think>",
    "closing think tags": "</think>\\boxed{",
    "other box-like macros": "\\boxedx{",  # the cut-in-box test looks past each one
    "closed boxes then one cut": "\\boxed{1}" * 3 + "\\boxed{",
}


def _text(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _best_time(text: str, reasoning: bool) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        extract_reply(text, reasoning=reasoning)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize("name", sorted(UNITS))
def test_adversarial_replies_are_read_in_linear_time(name, reasoning):
    small = _best_time(_text(UNITS[name], 50_000), reasoning)
    large = _best_time(_text(UNITS[name], 200_000), reasoning)
    assert large < 0.5, f"{name}: {large:.3f} s for 200k characters"
    # linear: 4x the text, ~4x the time (quadratic: 16x); tiny times are noise
    assert large <= max(10 * small, 0.1), f"{name}: {small:.4f} s -> {large:.4f} s"


def test_nested_boxes_closed_at_the_end_are_linear():
    depth = 25_000
    text = "\\boxed{" * depth + "7" + "}" * depth
    start = time.perf_counter()
    found = extract_answer(text)
    assert time.perf_counter() - start < 0.5
    # the outermost box is the answer; inner boxes are part of it, not further answers
    assert found.found == "boxed" and found.answer.endswith("7" + "}" * (depth - 1))


def _naive_closer(text: str, start: int) -> int | None:
    """The closing brace of the group opening at text[start], by a plain depth scan."""
    depth, i = 0, start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _escaped(text: str, i: int) -> bool:
    """True when text[i] is skipped as an escaped character by a left-to-right scan."""
    j = 0
    while j <= i:
        if text[j] == "\\":
            if j + 1 == i:
                return True
            j += 2
            continue
        j += 1
    return False


@pytest.mark.parametrize("path", ["stack (short replies)", "vectorised (long replies)"])
def test_brace_matcher_agrees_with_a_naive_scan_on_random_texts(path, monkeypatch):
    from gpassk_oc.core.answers import boxes

    if path.startswith("vectorised"):
        monkeypatch.setattr(boxes, "_VECTOR_FROM", 0)
    rng = random.Random(16)
    for _ in range(400):
        text = "".join(rng.choice("{}{}\\ab") for _ in range(rng.randint(0, 40)))
        closers = _closers(text)
        for i, ch in enumerate(text):
            if ch == "{" and not _escaped(text, i):
                assert closers.get(i) == _naive_closer(text, i), (text, i)


@pytest.mark.parametrize(
    "text, boxes",
    [
        (r"\boxed{{{5}}}", ["5"]),  # doubled braces unwrapped at any depth
        (r"\boxed{ { 5 } }", ["5"]),
        (r"\boxed{{1}{2}}", ["{1}{2}"]),  # two groups: not a doubled brace
        (r"\boxed{\{1\}}", [r"\{1\}"]),  # escaped braces are content
        (r"\boxed{a \boxed{b}} \boxed{c}", [r"a \boxed{b}", "c"]),  # inner box is content
        (r"\boxed{ \boxed{5", []),  # unclosed, twice
        (r"\boxed{ \boxed{5}", ["5"]),  # unclosed outer, closed inner
    ],
)
def test_box_contents(text, boxes):
    assert boxed_answers(text) == boxes


def test_formulas_do_not_span_an_unclosed_opener():
    # "\( a" never closes: the formula is the one that does
    assert extract_answer("Thus \\( a and then \\( x = 4 \\).").answer == "4"
    assert extract_answer("Thus \\[ a and then \\[ x = 4 \\]").answer == "4"
