"""The one rounding rule of every table, summary and JSON value of the report tools.

Metric values are fractions in [0, 1] and are shown in percent. A value is first freed of
binary noise (rounded to 9 decimals of a percent, so 100·0.2125 = 21.249999999999996
becomes 21.25), then rounded **half away from zero** (``decimal.ROUND_HALF_UP``): 21.25
prints as 21.3 in every table, 21.24 as 21.2, −0.05 as −0.1. JSON values carry 4 decimals
by the same rule. Python's ``format``/``round`` (half-to-even on the binary value) is never
used for shown numbers.

:func:`round_half_up` states the rule with :mod:`decimal`; :func:`pct` and
:func:`pct_text` give the same results through a float fast path (a grid report rounds
~200,000 values) that defers to it whenever a value lies near a rounding tie.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["DASH", "JSON_DIGITS", "TEXT_DIGITS", "pct", "pct_text", "round_half_up"]

DASH = "—"
TEXT_DIGITS = 1
JSON_DIGITS = 4
_NOISE = Decimal("1e-9")
#: how close (in units of the last kept digit) to a tie a value must be for the exact path;
#: the float product's error is ~1e-10 of a unit and the 9-decimal noise step moves a
#: value by at most 5e-10 of a percent, i.e. 5e-6 units at 4 digits: far inside this
_NEAR_TIE = 1e-3
#: beyond this many units (or digits) the float product's error could reach a tie: the
#: exact path (percentages of metrics are far below)
_FAST_UNITS = 1e9
_FAST_DIGITS = 4


def round_half_up(value: float, digits: int) -> Decimal:
    """*value* rounded to *digits* decimals, half away from zero, after removing float noise."""
    clean = Decimal(repr(float(value))).quantize(_NOISE, rounding=ROUND_HALF_UP)
    return clean.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def _units(percent: float, digits: int) -> int | None:
    """|*percent*| rounded half up to an integer count of 10**−digits, or None when the
    value is too near a tie (or too large) for the float fast path to be sure."""
    if not 0 <= digits <= _FAST_DIGITS:
        return None
    scaled = abs(percent) * 10.0**digits
    if scaled >= _FAST_UNITS:
        return None
    whole = math.floor(scaled)
    rest = scaled - whole
    if abs(rest - 0.5) < _NEAR_TIE:
        return None
    return whole + (rest > 0.5)


def pct(fraction: float | None, digits: int = JSON_DIGITS) -> float | None:
    """A fraction as a percent number for JSON/CSV (None when undefined)."""
    if fraction is None or not math.isfinite(fraction):
        return None
    percent = 100 * fraction
    units = _units(percent, digits)
    if units is None:
        return float(round_half_up(percent, digits))
    # int / int is correctly rounded, as float(Decimal) is; the sign keeps a rounded −0.0
    return math.copysign(units / 10**digits, percent)


def pct_text(fraction: float | None, digits: int = TEXT_DIGITS, sign: bool = False) -> str:
    """A fraction as percent text, e.g. ``21.3`` or ``+4.0`` (``—`` when undefined)."""
    if fraction is None or not math.isfinite(fraction):
        return DASH
    percent = 100 * fraction
    units = _units(percent, digits)
    if units is None:
        value = round_half_up(percent, digits)
        if value == 0:
            value = abs(value)  # never "-0.0"
        text = f"{value:.{digits}f}"
        negative = value < 0
    else:
        whole, part = divmod(units, 10**digits)
        text = f"{whole}.{part:0{digits}d}" if digits > 0 else str(whole)
        negative = units > 0 and percent < 0
        text = f"-{text}" if negative else text
    return f"+{text}" if sign and not negative else text
