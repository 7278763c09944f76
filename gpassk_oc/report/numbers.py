"""The one rounding rule of every table, summary and JSON value of the report tools.

Metric values are fractions in [0, 1] and are shown in percent. A value is first freed of
binary noise (rounded to 9 decimals of a percent, so 100·0.2125 = 21.249999999999996
becomes 21.25), then rounded **half away from zero** (``decimal.ROUND_HALF_UP``): 21.25
prints as 21.3 in every table, 21.24 as 21.2, −0.05 as −0.1. JSON values carry 4 decimals
by the same rule. Python's ``format``/``round`` (half-to-even on the binary value) is never
used for shown numbers.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["DASH", "JSON_DIGITS", "TEXT_DIGITS", "pct", "pct_text", "round_half_up"]

DASH = "—"
TEXT_DIGITS = 1
JSON_DIGITS = 4
_NOISE = Decimal("1e-9")


def round_half_up(value: float, digits: int) -> Decimal:
    """*value* rounded to *digits* decimals, half away from zero, after removing float noise."""
    clean = Decimal(repr(float(value))).quantize(_NOISE, rounding=ROUND_HALF_UP)
    return clean.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def pct(fraction: float | None, digits: int = JSON_DIGITS) -> float | None:
    """A fraction as a percent number for JSON/CSV (None when undefined)."""
    if fraction is None or not math.isfinite(fraction):
        return None
    return float(round_half_up(100 * fraction, digits))


def pct_text(fraction: float | None, digits: int = TEXT_DIGITS, sign: bool = False) -> str:
    """A fraction as percent text, e.g. ``21.3`` or ``+4.0`` (``—`` when undefined)."""
    if fraction is None or not math.isfinite(fraction):
        return DASH
    value = round_half_up(100 * fraction, digits)
    if value == 0:
        value = abs(value)  # never "-0.0"
    text = f"{value:.{digits}f}"
    return f"+{text}" if sign and value >= 0 else text
