"""The public Python API takes numbers where a user passes numbers, and otherwise raises a
TypeError naming the argument (issue 25: ``check_answer(3, 3)`` raised AttributeError)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from gpassk_oc.core.answers import (
    answers_equivalent,
    canonical_answer,
    check_answer,
    check_answers,
    extract_final_answer,
)
from gpassk_oc.core.metrics.gpass_exact import g_pass_at_k, mg_pass_at_k, pass_at_k, threshold_count
from gpassk_oc.core.metrics.majority_vote import maj_at_k


@pytest.mark.parametrize(
    "answer, gold, want",
    [
        (3, 3, "equal"),
        (3, "3", "equal"),
        ("3", 3, "equal"),
        (np.int64(12), "12", "equal"),
        (Fraction(1, 2), "\\frac{1}{2}", "equal"),
        (Decimal("2.50"), "2.5", "equal"),
        (0.25, "0.25", "equal"),
        (4, 3, "wrong"),
        (None, 3, "wrong"),  # no answer found
    ],
)
def test_numbers_are_checked_as_they_are_written(answer, gold, want):
    assert check_answer(answer, gold) == want
    assert check_answers([(answer, gold)]) == [want]
    assert answers_equivalent(answer, gold) is (want == "equal")


def test_a_bare_number_is_a_reply_and_an_answer():
    assert extract_final_answer(12) == "12"
    assert canonical_answer(7) == canonical_answer("7")


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: check_answer([1], "1"), "prediction"),
        (lambda: check_answer("1", None), "gold"),
        (lambda: check_answer(True, "1"), "prediction"),
        (lambda: check_answer("1", {"x": 1}), "gold"),
        (lambda: check_answer(float("nan"), "1"), "prediction"),
        (lambda: check_answers([("1", "1", "1")]), "pairs[0]"),
        (lambda: check_answers([("1", "1"), (2, [2])]), "pairs[1] gold"),
        (lambda: canonical_answer(b"1"), "answer"),
        (lambda: g_pass_at_k("16", 8, 4, 1.0), "n"),
        (lambda: g_pass_at_k(16, 8, 4.0, 1.0), "k"),
        (lambda: g_pass_at_k(16, 8, 4, None), "tau"),
        (lambda: g_pass_at_k(16, "8", 4, 1.0), "c"),
        (lambda: pass_at_k(16, 8, None), "k"),
        (lambda: mg_pass_at_k(16, 8, "4"), "k"),
        (lambda: threshold_count(4.0, 1), "k"),
        (lambda: maj_at_k((2, (1,), 0), 2.0), "k"),
        (lambda: maj_at_k(3, 2), "prof"),
    ],
)
def test_other_types_raise_a_type_error_naming_the_argument(call, name):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(name), info.value
    assert isinstance(info.value, ValueError)  # what 0.1.0 raised for some: still caught


def test_values_out_of_range_stay_value_errors():
    with pytest.raises(ValueError) as info:
        g_pass_at_k(16, 8, 32, 1.0)
    assert not isinstance(info.value, TypeError)
