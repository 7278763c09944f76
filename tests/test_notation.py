"""Notations a question may prescribe: a decimal against a fraction, and two integers
against their quotient, are the judge's call, never 'equal' (nor 'wrong') by the rules.

Expected outcomes come from the written notation and exact Fractions, not from the code.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.checking import check_answer, math_verify_outcomes
from gpassk_oc.core.answers.mv_pool import MathVerifyPool


def _decimal(v: Fraction) -> str:
    """The exact decimal digits of a value whose denominator divides 10^6."""
    scaled = abs(v) * 10**6
    whole, frac = divmod(scaled.numerator, 10**6)
    return ("-" if v < 0 else "") + f"{whole}.{frac:06d}".rstrip("0")


def _frac(v: Fraction) -> str:
    sign = "-" if v < 0 else ""
    return rf"{sign}\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


_TERMINATING = st.builds(
    Fraction,
    st.integers(min_value=-9999, max_value=9999),
    st.sampled_from([2, 4, 5, 8, 16, 20, 25, 40, 125]),
).filter(lambda v: v.denominator > 1)


@settings(max_examples=60, deadline=None)
@given(_TERMINATING, st.sampled_from(["", r"\pi", "x"]))
def test_a_decimal_against_the_same_fraction_is_undecided_either_way(value, factor):
    decimal, fraction = _decimal(value) + factor, _frac(value) + factor
    assert check_answer(decimal, fraction) == "undecided"
    assert check_answer(fraction, decimal) == "undecided"
    # within one notation the same value stays equal
    assert check_answer(_decimal(value) + "0" + factor, decimal) == "equal"
    slash = f"{value.numerator}/{value.denominator}"
    assert check_answer(slash + factor, fraction) == "equal"


@settings(max_examples=60, deadline=None)
@given(_TERMINATING, _TERMINATING)
def test_a_decimal_against_another_fraction_stays_wrong(a, b):
    if a == b or abs(a - b) <= Fraction(1, 100) * max(abs(a), abs(b)):
        return  # close values may be a rounding: other rules leave those undecided
    assert check_answer(_decimal(a), _frac(b)) == "wrong"


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("3.0", r"\frac{6}{2}", "equal"),  # no digit after the point: an integer
        (r"1\frac{1}{2}", "1.5", "undecided"),  # a mixed number is a fraction
        (r"0.\overline{3}", r"\frac{1}{3}", "undecided"),  # a repeating decimal too
        (r"\frac{1}{2}\approx0.5", "0.5", "equal"),  # both written on one side
        (r"(0.5, 2)", r"(\frac{1}{2}, 2)", "undecided"),  # inside a structure
        ("0.5, 2", r"2, \frac{1}{2}", "undecided"),
        ("0.75", r"\frac{3}{5}", "wrong"),
        # every writing of a repeating decimal, and of a fraction
        (r"0.\dot{6}", r"\frac{2}{3}", "undecided"),
        (r"0.\dot{2}\dot{7}", r"\frac{3}{11}", "undecided"),
        (r"0.25\pi", r"\pi/4", "undecided"),
        ("0.5x", "x/2", "undecided"),
        ("0.5", r"\cfrac{1}{2}", "undecided"),
        ("0.5", r"{1\over 2}", "undecided"),
        ("x/2", r"\frac{x}{2}", "equal"),  # two writings of a fraction
    ],
)
def test_notation_cases(pred, gold, expected):
    assert check_answer(pred, gold) == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=999), st.integers(min_value=2, max_value=999))
def test_two_integers_against_their_quotient_are_undecided(m, n):
    if m == n or gcd(m, n) != 1:
        return
    quotient = rf"\frac{{{m}}}{{{n}}}"
    pairs = [f"({m}, {n})"]
    if len(str(n)) != 3:  # 2,101 and 2, 101 are also the number 2101: not read as a pair
        pairs += [f"{m}, {n}", f"{m},{n}"]
    for pair in pairs:
        assert check_answer(quotient, pair) == "undecided", pair
        assert check_answer(pair, quotient) == "undecided", pair
    # the pair the other way round is not m/n: the value n/m is no reading of it
    assert check_answer(rf"\frac{{{n}}}{{{m}}}", f"({m}, {n})") == "wrong"
    if Fraction(m + 1, n).denominator > 1:  # an integer might be one of the two values
        assert check_answer(rf"\frac{{{m + 1}}}{{{n}}}", f"({m}, {n})") == "wrong"


def test_a_value_twice_or_over_one_is_not_a_quotient():
    assert check_answer("1, 1", "1") == "equal"  # the same answer twice
    assert check_answer("5, 1", "5") == "undecided"  # one of several answers


@pytest.mark.parametrize(
    "pred, gold",
    [
        (r"\frac{1}{250}", "1,250"),  # a thousands separator: the number 1250
        ("0.004", "1,250"),
        (r"\{1, 2\}", "0.5"),  # a set of two values, not m and n
        ("-0.5", "1, -2"),  # a denominator is positive
    ],
)
def test_what_is_not_a_pair_and_its_quotient_stays_wrong(pred, gold):
    assert check_answer(pred, gold) == "wrong"


def test_math_verify_equal_across_notations_is_undecided():
    pairs = [(canonical_answer("0.5"), canonical_answer(r"\frac{1}{2}")), ("x^2", "x*x")]
    with MathVerifyPool(workers=1, timeout=5.0) as pool:
        assert pool.check(*pairs[0]) == "equal"  # math-verify alone calls it equal
        assert math_verify_outcomes(pairs, pool, 5.0) == ["undecided", "equal"]
