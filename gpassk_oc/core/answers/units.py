"""Units of measure: which quantity a unit word measures, at which scale (pure core).

Used to tell "the same number with another name for the same unit" (``12 hrs`` for
``12 hours``: equal) from "the same number in another unit" (``12 minutes`` for
``12 hours``: a different quantity, or a slip — the judge's). Words that are no unit of
measure here (``candies``, ``students``) name what is counted and are not compared.
"""

from __future__ import annotations

import re

__all__ = ["measure", "different_measures"]

# (quantity, scale in a base unit of that quantity) per spelling; plural s is stripped first
_UNITS: dict[str, tuple[str, float]] = {}


def _add(quantity: str, scale: float, *names: str) -> None:
    for name in names:
        _UNITS[name] = (quantity, scale)


_add("length", 1e-3, "mm", "millimeter", "millimetre")
_add("length", 1e-2, "cm", "centimeter", "centimetre")
_add("length", 1.0, "m", "meter", "metre")
_add("length", 1e3, "km", "kilometer", "kilometre")
_add("length", 0.0254, "in", "inch", "inche")
_add("length", 0.3048, "ft", "foot", "feet")
_add("length", 0.9144, "yd", "yard")
_add("length", 1609.344, "mi", "mile")
_add("time", 1.0, "s", "sec", "second")
_add("time", 60.0, "min", "minute")
_add("time", 3600.0, "h", "hr", "hour")
_add("time", 86400.0, "day")
_add("time", 604800.0, "wk", "week")
_add("time", 2629800.0, "month")
_add("time", 31557600.0, "yr", "year")
_add("mass", 1e-3, "mg", "milligram")
_add("mass", 1.0, "g", "gram")
_add("mass", 1e3, "kg", "kilogram")
_add("mass", 453.59237, "lb", "pound")
_add("mass", 28.349523125, "oz", "ounce")
_add("volume", 1e-3, "ml", "milliliter", "millilitre")
_add("volume", 1.0, "l", "liter", "litre")
_add("volume", 3.785411784, "gal", "gallon")
_add("angle", 1.0, "degree", "deg")
_add("angle", 57.29577951308232, "rad", "radian")


def measure(unit: str) -> tuple[str, float] | None:
    """(quantity, scale) of a unit word (``"hours"``, ``"km^2"`` → area at km² scale),
    None when the word is no unit of measure known here."""
    key = re.sub(r"[\s.~\\,{}]", "", unit.lower())
    power = 1
    m = re.fullmatch(r"(.+?)\^([23])", key) or re.fullmatch(r"(square|cubic)(.+)", key)
    if m and m.group(1) in ("square", "cubic"):
        key, power = m.group(2), 2 if m.group(1) == "square" else 3
    elif m:
        key, power = m.group(1), int(m.group(2))
    if len(key) > 2 and key.endswith("s") and key not in _UNITS:
        key = key[:-1]
    found = _UNITS.get(key)
    if found is None:
        return None
    quantity, scale = found
    return (quantity if power == 1 else f"{quantity}^{power}", scale**power)


def different_measures(a: str, b: str) -> bool:
    """Both words are units of measure, of different quantities or scales (cm and m,
    minutes and hours, kg and m): the same number then states a different amount."""
    ma, mb = measure(a), measure(b)
    if ma is None or mb is None:
        return False
    return ma[0] != mb[0] or abs(ma[1] - mb[1]) > 1e-12 * max(ma[1], mb[1])
