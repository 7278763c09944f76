"""The float fast path of report.numbers gives exactly the rounding rule's results.

Oracle: the rule computed here with exact fractions (shortest repr of the percent, rounded
half away from zero to 9 decimals, then to the shown digits), independent of
:mod:`decimal` and of the code under test."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from gpassk_oc.report.data.numbers import pct, pct_text


def _half_up(value: Fraction, digits: int) -> Fraction:
    scale = Fraction(10) ** digits
    units = math.floor(abs(value) * scale + Fraction(1, 2))
    return Fraction(units if value >= 0 else -units) / scale


def _rule(fraction: float, digits: int) -> tuple[Fraction, bool]:
    """(rounded value, whether the unrounded percent was negative)."""
    percent = 100 * fraction
    exact = Fraction(repr(percent))
    return _half_up(_half_up(exact, 9), digits), math.copysign(1.0, percent) < 0


def _text(value: Fraction, negative: bool, digits: int, sign: bool) -> str:
    units = abs(value) * 10**digits
    assert units.denominator == 1
    whole, part = divmod(int(units), 10**digits)
    text = f"{whole}.{part:0{digits}d}" if digits else str(whole)
    if value < 0:
        text = "-" + text
    return "+" + text if sign and value >= 0 else text


def _cases() -> list[float]:
    rng = random.Random(25)
    values = [0.0, -0.0, 1.0, -1.0, 0.2125, -0.0005, 0.0005, 1e-12, -1e-12, 5e-7, 0.123455]
    values += [c / n for n in range(1, 101) for c in range(-3, n + 1)]  # every tie of k/n
    values += [rng.uniform(-1, 1) for _ in range(2000)]
    values += [
        rng.randrange(-(10**6), 10**6) / 10 ** rng.randrange(2, 9) / 100 for _ in range(2000)
    ]
    values += [rng.uniform(-1e9, 1e9) for _ in range(200)]
    return values


CASES = _cases()


@pytest.mark.parametrize("digits", [1, 4])
def test_pct_matches_the_exact_rule(digits):
    for fraction in CASES:
        want, negative = _rule(fraction, digits)
        got = pct(fraction, digits)
        assert got is not None
        assert Fraction(got) == Fraction(float(want)), (fraction, digits, got, want)
        # a value rounded to zero keeps the sign of its percent, as float(Decimal) does
        assert math.copysign(1.0, got) == (-1.0 if want < 0 or (want == 0 and negative) else 1.0)


@pytest.mark.parametrize(("digits", "sign"), [(0, False), (1, False), (1, True), (2, True)])
def test_pct_text_matches_the_exact_rule(digits, sign):
    for fraction in CASES:
        want, negative = _rule(fraction, digits)
        assert pct_text(fraction, digits, sign) == _text(want, negative, digits, sign), fraction


def test_undefined_values():
    assert pct(None) is None and pct(float("nan")) is None and pct(float("inf")) is None
    assert pct_text(None) == pct_text(float("nan")) == "—"


def test_known_values():
    assert pct_text(17 / 80) == "21.3" and pct_text(-0.0005) == "-0.1"
    assert pct_text(-0.0004, sign=True) == "+0.0" and pct(0.2125, 1) == 21.3
