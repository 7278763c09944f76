"""The one rule-checking pipeline: dedup of distinct pairs, the pool passed in, the
tolerances in a frozen config. Expected counts are read off the pairs by hand."""

import dataclasses
from fractions import Fraction

import pytest

from gpassk_oc.core.answers.checking import (
    DEFAULT_RULES,
    RuleConfig,
    check_answers,
    check_pairs,
)
from gpassk_oc.core.answers.mv_pool import MathVerifyPool
from gpassk_oc.core.answers.rules import DEFAULT_TOLERANCES, Tolerances


@pytest.fixture(scope="module")
def pool():
    with MathVerifyPool(workers=1, timeout=3.0) as p:
        yield p


def test_each_distinct_pair_once_and_math_verify_only_when_needed(pool):
    pairs = [
        (r"\cotx", r"\cot(x)"),  # no cheap rule decides it: math-verify
        ("0.50", "1/2"),  # exact rationals, but a decimal for a fraction: the judge's
        (r"\cotx", r"\cot(x)"),
        ("", "3"),  # no answer: wrong, not a check
        ("0.50", "1/2"),
    ]
    before = pool.timeouts
    checked = check_pairs(pairs, pool)
    assert (checked.checks, checked.mv_calls, checked.timeouts) == (2, 1, 0)
    assert [checked.outcome(*p) for p in pairs] == [
        "equal",
        "undecided",
        "equal",
        "wrong",
        "undecided",
    ]
    assert pool.timeouts == before


def test_the_conveniences_are_the_same_pipeline(pool):
    raw = [(r"\cot x", r"\cot(x)"), (None, "3"), ("  ", "3"), ("1/2", r"\frac{1}{2}")]
    assert check_answers(raw, pool) == ["equal", "wrong", "wrong", "equal"]


# 785.0 against the decimal 785.12 is off by 0.12 / 785.12 ~ 0.015 %, under the 0.5 % bound;
# 780 is off by 5.12 / 785.12 ~ 0.65 %, over it
@pytest.mark.parametrize(
    "pred, gold, default, without",
    [
        ("785.0", "785.12", "undecided", "wrong"),  # 785 alone would be a rounding
        ("780", "785.12", "wrong", "wrong"),
        ("1.41", r"\{\sqrt{2}\}", "undecided", "wrong"),  # a rounding within 5 %
    ],
)
def test_tolerances_come_from_the_config(pool, pred, gold, default, without):
    assert Fraction("0.12") / Fraction("785.12") < Fraction(5, 1000) < Fraction("5.12") / 785
    strict = RuleConfig(tolerances=Tolerances(rounding=0, decimal_reference=0, pi_approximation=0))
    assert check_answers([(pred, gold)], pool) == [default]
    assert check_answers([(pred, gold)], pool, strict) == [without]


def test_config_is_frozen_and_checked():
    assert DEFAULT_RULES.tolerances is DEFAULT_TOLERANCES
    assert (DEFAULT_TOLERANCES.rounding, DEFAULT_TOLERANCES.decimal_reference) == (0.05, 0.005)
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_RULES.mv_timeout = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError, match="mv_timeout"):
        RuleConfig(mv_timeout=0)
