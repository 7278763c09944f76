"""Other ways of writing one value: decorations, lists, ``\\pm``, approximations (pure core).

Models write the value a gold answer states in many forms a judge accepts. Each rule here
says 'equal' only when the reading is unambiguous, 'undecided' when a judge could go
either way, and 'wrong' only when *no* reading of the notation matches:

* decorations (:func:`decorated`): a currency sign (``\\$45.00``), thousands separators
  (``3,110,400``), a ratio (``20:3`` is 20/3), a trailing unit (``34\\text{hours}``, ``130\\text{m}``), percent
  (``17.5\\%`` reads as 17.5 or 0.175) and degrees (``30^\\circ`` reads as 30 or π/6).
  No reading equal → 'wrong', except a unit against a number that differs by a unit
  conversion factor (10^k, 60, 3600, 12, …) → 'undecided'; the same number in two
  different units of measure (``34\\text{ cm}`` for ``34\\text{ m}``, :mod:`.units`) →
  'undecided' (words that name what is counted, ``candies``, are not compared);
* decimal approximations (:func:`approximation`): an answer ``85.71`` for the gold
  ``\\frac{600}{7}`` → 'undecided' (right unless the problem asks for the exact value: only
  the judge sees the question); the exact answer for a rounded gold (``\\sqrt{3}`` for
  ``1.732``) → 'equal' when correctly rounded to ≥ 3 significant digits (a fraction for a
  decimal gold is then made 'undecided' by :mod:`.notation`); a whole percent
  (``33\\%`` for 1/3) or a one-digit gold within one unit → 'undecided'; a decimal that does
  not round or truncate to the value stays 'wrong';
* unit slips (:func:`unit_slip`): values a factor 100 apart (a percent without its sign) or
  180/π apart (degrees against radians) → 'undecided', never 'wrong';
* degrees inside an expression (:func:`degree_check`): ``\\sin30^\\circ``, ``(45^\\circ,60^\\circ)``
  read as degrees and as radians on both sides;
* fractions not in lowest terms (:func:`unreduced`): ``\\frac{58}{87}`` for 2/3 → 'undecided';
* mixed numbers (:func:`mixed_number`): ``21\\frac{13}{14}`` is 21 + 13/14;
* a decimal comma (``2,5`` for 2.5; not a thousands group): 'undecided' — a list 2, 5 reads
  the same;
* lists (:func:`list_check`): comma lists, ``\\pm`` (``2\\pm\\sqrt{3}`` = ``2+\\sqrt{3}, 2-\\sqrt{3}``)
  and repeated elements (``20, 20``) compared as sets of elements. Same elements in the same
  order → 'equal'; reordered → 'undecided' when one side is a tuple ``(3,1)`` or names its
  values (``x=3, y=1``) and the other does not (a tuple is ordered), 'equal' when both name
  their values, either is written as a set, the gold is a list of tuples, or values in
  sorted order (a solution set; two values always are), else 'undecided' (the order of
  three unsorted values may carry meaning: a, b, c); a proper subset
  (one of several answers) → 'undecided'; an element matching none of the gold's →
  'wrong';
* two integers m, n (a list or a tuple) against the value m/n (:func:`pair_and_quotient`):
  'undecided' — a question asking for m and n with a sum equal to m/n.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

from gpassk_oc.core.answers.canonical import as_rational, split_top
from gpassk_oc.core.answers.numeric import FLOAT, Numbers, Outcome, compare_numbers, numeric_value
from gpassk_oc.core.answers.units import different_measures

Check = Callable[[str, str, Numbers], Outcome | None]

_THOUSANDS_RE = re.compile(r"^([+-]?)(\d{1,3}(?:,\d{3})+)(\.\d+)?$")
_CURRENCY_RE = re.compile(r"^(-?)(?:\\\$|\\textdollar|USD|¥|￥|€|£)")
_UNIT_TAIL_RE = re.compile(
    r"(?:\\(?:text|mathrm|mbox|textrm|operatorname)\{([^{}]*)\}(?:\^\{?[23]\}?)?"
    r"|(?<=\d)([a-zA-Z]{2,20}(?:\^[23])?)"
    r"|(?<=\d)([\u4e00-\u9fff]{1,4}))$"
)
_DEGREE_RE = re.compile(r"(?:\^\\circ|°|\\circ|\\degree)$")
_PERCENT_RE = re.compile(r"(?:\\%|%)$")
_CONVERSIONS = (10.0, 100.0, 1000.0, 1e4, 1e6, 60.0, 3600.0, 12.0, 24.0, 36.0, 144.0, 1728.0)


class Decorated(NamedTuple):
    """A number with its decorations stripped: value and what surrounded it."""

    value: Any
    kind: str  # 'plain' | 'grouped' (1,200) | 'ratio' (20:3) | 'unit' | 'percent' | 'degree'
    unit: str


def strip_decorations(canonical: str) -> tuple[str, str, str] | None:
    """(bare number text, kind, unit): currency, degree, percent and unit tails and thousands
    separators taken off (``\\$1,200`` → ``1200``); None when a tail is not a unit."""
    text = canonical
    kind, unit = "plain", ""
    m = _CURRENCY_RE.match(text)
    if m:
        text = m.group(1) + text[m.end() :]
        kind = "unit"
    for _ in range(2):  # "30^\circ\text{}" / "5\text{cm}^2"-like tails, at most two layers
        if _DEGREE_RE.search(text):
            text, kind = _DEGREE_RE.sub("", text), "degree"
        elif _PERCENT_RE.search(text):
            text, kind = _PERCENT_RE.sub("", text), "percent"
        else:
            tail = _UNIT_TAIL_RE.search(text)
            if tail is None or tail.start() == 0:
                break
            word = next(g for g in tail.groups() if g is not None).strip()
            power = re.search(r"\}\^\{?([23])\}?$", tail.group(0))
            if power:  # \text{cm}^2: the power belongs to the unit
                word += "^" + power.group(1)
            if word and not re.fullmatch(
                r"[A-Za-z]{1,20}(?:\^[23])?|[\u4e00-\u9fff]{1,4}|"
                r"[A-Za-z][A-Za-z ./^0-9-]*",
                word,
            ):
                return None
            text = text[: tail.start()]
            kind, unit = "unit", word.lower()
    m = _THOUSANDS_RE.match(text)
    if m:
        text = m.group(1) + m.group(2).replace(",", "") + (m.group(3) or "")
        kind = "grouped" if kind == "plain" else kind
    return text.strip(), kind, unit


def decorated(canonical: str, num: Numbers) -> Decorated | None:
    """The value of a decorated number (``\\$1,200``, ``30^\\circ``, ``40\\text{cm}``), else None.

    A bare number without decoration also returns (value, 'plain', '') so that both sides
    of a comparison read alike; anything that is not one number returns None.
    """
    stripped = strip_decorations(canonical)
    if stripped is None:
        return None
    text, kind, unit = stripped
    if not text or "," in text:
        return None
    if text.count(":") == 1 and kind == "plain":  # a ratio 20:3 is the number 20/3
        left, right = (numeric_value(side, num) for side in text.split(":"))
        if (
            left is None
            or right is None
            or not right
            or isinstance(left, num.complex_type)
            or isinstance(right, num.complex_type)
        ):
            return None
        return Decorated(left / right, "ratio", "")
    mixed = mixed_number(text)  # 3\frac{1}{2} hours is 3.5 hours, not 3·(1/2)
    value = (
        num.number(str(mixed.numerator)) / mixed.denominator
        if mixed is not None
        else numeric_value(text, num)
    )
    if value is None or isinstance(value, num.complex_type):
        return None
    return Decorated(value, kind, unit)


def _readings(d: Decorated, num: Numbers) -> list:
    return [value for value, _ in _scaled_readings(d, num)]


def _scaled_readings(d: Decorated, num: Numbers) -> list:
    """(reading, scale): 17.5% is 17.5 or 0.175 — the latter with its last digit 1/100 as
    large; 30° is 30 or π/6 (scale π/180)."""
    if d.kind == "percent":
        return [(d.value, 1), (d.value / 100, 1 / 100)]
    if d.kind == "degree":
        return [(d.value, 1), (d.value * num.pi / 180, float(num.pi) / 180)]
    return [(d.value, 1)]


def decoration_check(pred: str, gold: str, num: Numbers) -> Outcome | None:
    """Numbers where at least one side is decorated (see the module doc), else None."""
    p, g = decorated(pred, num), decorated(gold, num)
    if p is None or g is None or (p.kind == "plain" and g.kind == "plain"):
        return None
    outcomes = [compare_numbers(a, b, num) for a in _readings(p, num) for b in _readings(g, num)]
    if "equal" in outcomes:
        if p.unit and g.unit and different_measures(p.unit, g.unit):
            return "undecided"  # 34 minutes for 34 hours: another amount, or a slip of the gold
        return "equal"
    if "grouped" in (p.kind, g.kind):
        return None  # "25,100" may be the list 25, 100: the list rules decide
    if None in outcomes:
        return None
    if (
        (p.kind == "unit" or g.kind == "unit")
        and p.unit != g.unit
        and _conversion(p.value, g.value)
    ):
        return "undecided"  # 2 m against 200: a unit conversion the problem may ask for
    return approximation(pred, gold, num) or "wrong"


def unit_slip(pred: Any, gold: Any) -> bool:
    """Two values (numbers, or answers to evaluate) that differ exactly by a factor of 100 (a
    percent written without its sign: 0.35 for 35) or of 180/π (an angle in the other unit:
    π/6 for 30): the question decides which unit it asked for, so the pair is not
    confidently wrong."""
    p = numeric_value(pred, FLOAT) if isinstance(pred, str) else pred
    g = numeric_value(gold, FLOAT) if isinstance(gold, str) else gold
    if not p or not g or isinstance(p, complex) or isinstance(g, complex):
        return False
    if isinstance(p, Fraction) and isinstance(g, Fraction):  # exact (and maybe huge)
        return abs(p) == 100 * abs(g) or abs(g) == 100 * abs(p)
    try:
        p, g = float(p), float(g)
    except (OverflowError, TypeError):  # TypeError: an mpmath complex (mpc), no unit slip
        return False
    if not p or not g:
        return False
    ratio = max(abs(p / g), abs(g / p))
    return any(abs(ratio - f) <= 1e-9 * f for f in (100.0, 180 / math.pi))


_FRACTION_RE = re.compile(r"^[+-]?(?:\\frac\{(\d+)\}\{(\d+)\}|(\d+)/(\d+))$")


def unreduced(canonical: str) -> bool:
    """A fraction not in lowest terms (``\\frac{58}{87}``, ``4/2``): equal in value to its
    reduced form, yet many graders require simplest form — the judge decides."""
    m = _FRACTION_RE.match(canonical)
    if m is None:
        return False
    top, bottom = (int(x) for x in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    return bottom > 1 and math.gcd(top, bottom) > 1


_DEGREES_IN_RE = re.compile(r"(\d+(?:\.\d+)?)(?:\^\\circ|°)")  # canonical: ^{\circ} is ^\circ
_LONE_DEGREES_RE = re.compile(r"^[+-]?\d+(?:\.\d+)?(?:\^\\circ|°)$")


def has_degrees(canonical: str) -> bool:
    """Degrees inside an expression (not a lone ``30^\\circ``: the decoration rules read it)."""
    return bool(_DEGREES_IN_RE.search(canonical)) and not _LONE_DEGREES_RE.match(canonical)


def degree_check(pred_canon: str, gold_canon: str, num: Numbers, check: Check) -> Outcome | None:
    """Degrees inside an expression (``\\sin30^\\circ``, ``180^\\circ-30^\\circ``,
    ``(45^\\circ,60^\\circ)``) read both ways on both sides: as numbers of degrees (the unit
    dropped) and as radians (N° = Nπ/180). Equal in either reading → equal; wrong in both →
    wrong; otherwise undecided (None when neither reading is decided). A lone ``30^\\circ``
    is left to the decoration rules (30 or π/6); *check* compares each reading."""
    degrees = [_DEGREES_IN_RE.sub(r"\1", t) for t in (pred_canon, gold_canon)]
    radians = [
        _DEGREES_IN_RE.sub(r"(\1\\cdot\\frac{\\pi}{180})", t) for t in (pred_canon, gold_canon)
    ]
    outcomes = [check(degrees[0], degrees[1], num), check(radians[0], radians[1], num)]
    if "equal" in outcomes:
        return "equal"
    if outcomes == ["wrong", "wrong"]:
        return "wrong"
    return None if outcomes == [None, None] else "undecided"


def _conversion(a: Any, b: Any) -> bool:
    if not a or not b:
        return False
    ratio = abs(float(a) / float(b))
    ratio = max(ratio, 1 / ratio) if ratio else 0.0
    return any(abs(ratio - f) <= 1e-9 * f for f in _CONVERSIONS)


_DECIMAL_RE = re.compile(r"^[+-]?\d*\.(\d+)$")


def _value(text: str, num: Numbers) -> list | None:
    """The readings of one value, each with the scale of its last digit: a mixed number, a
    decorated number or a closed value."""
    mixed = mixed_number(text)
    if mixed is not None:
        return [(num.number(str(mixed.numerator)) / mixed.denominator, 1)]
    d = decorated(text, num)
    return _scaled_readings(d, num) if d is not None else None


def approximation(pred: str, gold: str, num: Numbers) -> Outcome | None:
    """One side a decimal approximation of the other (see :func:`approximates`): 'equal' when
    correctly rounded to at least 3 significant digits, 'undecided' otherwise, else None
    (also for a percent against an angle: 17.5% is no rounding of 10°)."""
    kinds = {d.kind for d in (decorated(pred, num), decorated(gold, num)) if d is not None}
    if {"percent", "degree"} <= kinds:
        return None
    found = approximates(pred, gold, num)
    if found is not None:
        # a rounded answer for an exact reference (0.333 for 1/3) is right unless the
        # problem asks for the exact value ("as a common fraction"): only the judge sees that
        gold_bare = strip_decorations(gold)
        exact_reference = gold_bare is None or not _DECIMAL_RE.match(gold_bare[0])
        return "undecided" if exact_reference else found
    # the reference is the rounding (30.52 for 1587/52)
    return approximates(gold, pred, num, reference=True)


def approximates(approx: str, exact: str, num: Numbers, reference: bool = False) -> Outcome | None:
    """*approx* as a rounding of *exact*: 'equal' if it is *exact* correctly rounded to its own
    decimals with ≥ 3 significant digits, 'undecided' if it is within one unit of its last
    digit (truncated, or only 2 significant digits), None if not an approximation at all
    (also for a single significant digit: 0.3 is not 1/3, unless *approx* is the
    *reference*, the gold: then 'undecided').

    An *exact* that is itself a decimal with no more digits is simply a different value;
    an integer counts as an approximation only of a decimal gold with ≥ 2 decimals (300 for
    299.94) or as a whole percent (33% for 1/3, 'undecided')."""
    stripped, exact_stripped = strip_decorations(approx), strip_decorations(exact)
    if stripped is None:
        return None
    bare = stripped[0]  # digits are counted on the number alone, never on its unit or %
    m = _DECIMAL_RE.match(bare)
    digits = len(m.group(1)) if m else 0
    integer = re.fullmatch(r"[+-]?\d+", bare) is not None
    if m is None and not (
        integer
        and exact_stripped is not None
        and (
            stripped[1] == "percent"  # 33% for 1/3: a rounding to whole percents
            or ((e := _DECIMAL_RE.match(exact_stripped[0])) is not None and len(e.group(1)) >= 2)
        )
    ):
        return None
    exact_fraction = _as_fraction(exact)
    if exact_fraction is not None and (exact_fraction * 10**digits).denominator == 1:
        return None  # 0.5 vs 0.6: both exact at this precision
    p, g = _value(approx, num), _value(exact, num)
    if p is None or g is None:
        return None
    unit = 10.0 ** (-digits)
    # distance in units of the approximation's last digit, in the scale of its reading
    best = min(abs(float(a) - float(b)) / scale for a, scale in p for b, _ in g)
    if best > unit * (1 + 1e-9):
        return None
    significant = len(re.sub(r"^[+-]?0*\.?0*", "", bare).replace(".", ""))
    if significant < 2:
        # 0.3 for 1/3: too coarse to be meant as the value — unless the reference itself is
        # that coarse (2/3 for a reference 0.7): then only the problem tells
        return "undecided" if reference and m is not None else None  # 1 is no rounding
    if m is not None and best <= unit / 2 * (1 + 1e-9) and significant >= 3:
        return "equal"
    return "undecided"


def _as_fraction(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


_MIXED_RE = re.compile(r"^([+-]?)(\d+)\\frac\{(\d+)\}\{(\d+)\}$")


def mixed_number(canonical: str) -> Fraction | None:
    """``21\\frac{13}{14}`` → 21 + 13/14 (a proper fraction right after an integer), else None."""
    m = _MIXED_RE.match(canonical)
    if m is None:
        return None
    whole, top, bottom = int(m.group(2)), int(m.group(3)), int(m.group(4))
    if bottom == 0 or top >= bottom:
        return None
    value = whole + Fraction(top, bottom)
    return -value if m.group(1) == "-" else value


_PM_RE = re.compile(r"\\(?:pm|mp)(?![a-zA-Z])")


def elements(canonical: str) -> list[str] | None:
    """The elements of a comma list or a ``\\pm`` expression (≥ 2), else None.

    Set braces, ``\\text{and}`` / ``\\text{or}`` separators and a leading ``x=`` shared by
    ``x=1,x=2`` are read; bracketed tuples and intervals are single elements.
    """
    text = canonical
    if text.startswith("\\{") and text.endswith("\\}"):
        text = text[2:-2]
    text = re.sub(r"\\text\{(?:and|or|,)\}|\\(?:quad|qquad)|;|\\text\{和\}|和|或", ",", text)
    pm = _PM_RE.split(text)
    if len(pm) == 2 and "," not in text:
        left, right = pm
        head = re.match(r"^([a-zA-Z](?:_\d)?=)?(.*)$", left)
        assert head is not None
        base = head.group(2)
        return [f"{base}+{right}" if base else right, f"{base}-{right}" if base else f"-{right}"]
    parts = [p for p in split_top(text) if p]
    if len(parts) < 2 or len(parts) != len(split_top(text)):
        return None
    return parts


def _tuple(canonical: str) -> list[str] | None:
    if len(canonical) > 2 and canonical[0] == "(" and canonical[-1] == ")":
        parts = split_top(canonical[1:-1])
        if len(parts) >= 2 and all(parts):
            return parts
    return None


_ALTERNATIVES_RE = re.compile(r"\\(?:pm|mp|lor)(?![a-zA-Z])|\\text\{or\}|或")
_SAME_NAME_RE = re.compile(r"(?:^|,)([a-zA-Z](?:_\d)?)=")


def _solution_set(text: str) -> bool:
    """A list written as a set of solutions: set braces, ``\\pm``, "or", or one name for
    every value (``x=1, x=-2``) — its order is not part of the answer."""
    if text.startswith("\\{") or _ALTERNATIVES_RE.search(text):
        return True
    names = _SAME_NAME_RE.findall(text)
    return len(names) >= 2 and len(set(names)) == 1 and len(names) == len(split_top(text))


def _sorted_values(parts: list[str], num: Numbers) -> bool:
    """Values in increasing or decreasing order (two always are: two solutions are listed in
    either order, as math-verify reads them; on the labelled dev data every reordered pair
    of two values was a correct answer)."""
    values = [numeric_value(p, num) for p in parts]
    if any(v is None or isinstance(v, num.complex_type) for v in values):
        return False
    return values == sorted(values) or values == sorted(values, reverse=True)


# "x=3", "a_1=3", "f(2)=3", "\\text{Max}=3", "Paolo:18": an element that names its value
_NAMED_RE = re.compile(
    r"^(\\?[A-Za-z]+(?:_(?:\{[^{}]*\}|\w))?(?:\([^()=]*\))?|\\text\{[^{}]*\})(?:=|:)"
)


def _named(parts: list[str]) -> bool:
    """Elements that carry distinct names (``x=3, y=2``, ``Max: 2, Min: 1``): the names fix
    which value is which, so the list is ordered; ``x=1, x=2`` lists solutions."""
    names = [m.group(1) for p in parts if (m := _NAMED_RE.match(p))]
    return len(names) == len(parts) and len(set(names)) > 1


_DECIMAL_COMMA_RE = re.compile(r"^[+-]?\d+,\d+$")
_INTEGER_RE = re.compile(r"^[+-]?\d+$")


def pair_and_quotient(pred: str, gold: str) -> bool:
    """Two integers m, n (a list or a tuple) on one side, the value m/n on the other:
    "determine m and n for which the sum is m/n" is answered either way."""
    for pair, other in ((pred, gold), (gold, pred)):
        if pair.startswith("\\{") or _THOUSANDS_RE.match(pair):
            continue  # a set of two values; 1,250 is one number
        parts = elements(pair) or _tuple(pair)
        if parts is None or len(parts) != 2 or not all(_INTEGER_RE.match(p) for p in parts):
            continue
        top, bottom = int(parts[0]), int(parts[1])
        if bottom <= 1 or top == bottom:
            continue  # 5, 1 or 1, 1: one value (and another, or itself again), not m/n
        value = as_rational(other)
        if value is not None and value == Fraction(top, bottom):
            return True
    return False


def list_check(pred: str, gold: str, num: Numbers, check: Check) -> Outcome | None:
    """Lists against lists or single values, elements compared with *check* (see module doc)."""
    pe, ge = elements(pred), elements(gold)
    if pe is None and ge is None:
        return None
    for text, other in ((pred, gold), (gold, pred)):
        # 2,5 for 2.5: a decimal comma, or the list 2, 5 — only the context tells
        if _DECIMAL_COMMA_RE.match(text) and check(text.replace(",", "."), other, num) == "equal":
            return "undecided"
    unordered = any(_solution_set(s) for s in (pred, gold))
    # a tuple (x, y) or named values (x=3, y=2) against a bare list are ordered: a
    # reordering is no match (named on both sides, the names pair the values up)
    ordered = (pe is not None and _named(pe)) != (ge is not None and _named(ge))
    if pe is None and ge is not None and not gold.startswith("("):
        pe = _tuple(pred)  # (1000, 10) against 10^3, 10
        ordered = ordered or pe is not None
    if ge is None and pe is not None and not pred.startswith("("):
        ge = _tuple(gold)
        ordered = ordered or ge is not None
    pe, ge = pe or [pred], ge or [gold]
    if len(pe) > 40 or len(ge) > 40:
        return None
    table = [[check(a, b, num) for b in ge] for a in pe]
    matched_p = [any(o == "equal" for o in row) for row in table]
    matched_g = [any(row[j] == "equal" for row in table) for j in range(len(ge))]
    if all(matched_p) and all(matched_g):
        if len(pe) == len(ge) and all(table[i][i] == "equal" for i in range(len(pe))):
            return "equal"
        if ordered:
            return "undecided"  # (3,1) against 1,3: the problem may or may not fix an order
        if _named(pe) and _named(ge):
            return "equal"  # a=1, b=2 for b=2, a=1: the names pair the values up
        if len(set(pe)) < len(pe) or len(set(ge)) < len(ge):
            return "equal"  # "20, 20" for 20: the same answer twice
        if unordered or all(g.startswith("(") for g in ge) or _sorted_values(ge, num):
            return "equal"  # a solution set: its order is not part of the answer
        return "undecided"
    unmatched = [row for row, ok in zip(table, matched_p) if not ok]
    if all(matched_p) or all(matched_g):
        return "undecided"  # one of several answers, or extra answers besides the gold's
    if all(o == "wrong" for row in unmatched for o in row):
        return "wrong"  # answers that are none of the gold's, and gold answers missing
    if any(o is None for row in table for o in row):
        return None
    return "undecided"
