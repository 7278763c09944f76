"""Classes of answers the rules must leave to the judge, or decide only by an identity (issue 16).

Every case is written by hand (none is a row of the labelled dev set); expected outcomes come
from enumeration (permutations), exact Fractions or the written notation, never from the code.
"""

import re
from fractions import Fraction
from itertools import permutations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.checking import check_answer
from gpassk_oc.core.answers.rules import fast_check
from gpassk_oc.core.answers.units import different_measures, measure


def check(pred: str, gold: str):
    return fast_check(canonical_answer(pred), canonical_answer(gold))


# -- a tuple is ordered ----------------------------------------------------------------------


@pytest.mark.parametrize("order", list(permutations(range(3))))
def test_a_reordered_tuple_is_never_equal(order):
    values = ["4", "-7", r"\frac{2}{9}"]
    gold_tuple, gold_list = "(" + ",".join(values) + ")", ", ".join(values)
    pred = "(" + ", ".join(values[i] for i in order) + ")"
    expected = "equal" if order == (0, 1, 2) else "undecided"
    assert check(pred, gold_tuple) == expected
    assert check(pred, gold_list) == expected  # a tuple against the bare list
    assert check(gold_list, pred) == expected


def test_ordered_pair_against_a_list_math_verify_case():
    assert check_answer("(3,1)", "1,3") == "undecided"
    assert check_answer("1,3", "(3,1)") == "undecided"
    assert check_answer("(3,1)", "3,1") == "equal"
    assert check_answer("(3,2)", "1,3") == "wrong"  # 2 is no value of the gold


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("x=5, y=2", "(2,5)", "undecided"),  # named values in another order than a tuple
        ("x=2, y=5", "(2,5)", "equal"),
        ("p=1, q=8", "8, 1", "undecided"),
        ("q=8, p=1", "p=1, q=8", "equal"),  # names on both sides pair the values up
        ("q=1, p=8", "p=1, q=8", "undecided"),
        ("s=4, s=-4", "-4, 4", "equal"),  # one name: solutions, in any order
        ("(1,5),(5,1)", r"\{(5,1),(1,5)\}", "equal"),  # a set of tuples has no order
        ("(5,1),(6,2)", "(1,5),(2,6)", "undecided"),  # each pair reordered
        ("(5,1),(6,3)", "(1,4),(2,7)", "wrong"),
    ],
)
def test_named_values_and_lists_of_tuples(pred, gold, expected):
    assert check(pred, gold) == expected


# -- thousands separators --------------------------------------------------------------------


def test_thousands_separator_math_verify_case():
    assert check_answer("32,349", "32349") == "equal"
    assert check_answer("32349", "32,349") == "equal"
    assert check_answer(r"\boxed{32{,}349}", "32349") == "equal"
    assert check_answer("32,348", "32349") == "wrong"


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1000, max_value=10**12))
def test_grouped_digits_are_one_number(n):
    assert check(f"{n:,}", str(n)) == "equal"
    assert check(str(n), f"{n:,}") == "equal"
    assert check(f"{n:,}", str(n + 1)) != "equal"


# -- decimals, fractions, percent, angle units -----------------------------------------------


def _rounded(value: Fraction, decimals: int) -> str:
    scaled = value * 10**decimals
    whole = int(scaled + Fraction(1, 2)) if scaled >= 0 else -int(-scaled + Fraction(1, 2))
    sign = "-" if whole < 0 else ""
    digits = str(abs(whole)).rjust(decimals + 1, "0")
    return f"{sign}{digits[:-decimals]}.{digits[-decimals:]}"


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=22, max_value=9999), st.sampled_from([3, 7, 9, 11, 13, 17, 21]))
def test_a_rounding_against_an_exact_value_is_the_judges_either_way(top, bottom):
    value = Fraction(top, bottom)  # above 1: three decimals are ≥ 4 significant digits
    if value.denominator == 1:
        return
    exact = rf"\frac{{{value.numerator}}}{{{value.denominator}}}"
    decimal = _rounded(value, 3)
    assert check(decimal, exact) == "undecided"  # "as a common fraction" may have been asked
    assert check(exact, decimal) == "undecided"  # "to the nearest thousandth" may have been


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("0.25", r"\frac{1}{4}", "undecided"),  # exact, but the notation may be prescribed
        (r"\frac{3}{8}", "0.375", "undecided"),
        (r"\frac{5}{6}", "0.8", "undecided"),  # a one-digit reference
        (r"\frac{5}{6}", "0.6", "wrong"),
        (r"12.5\%", r"\frac{1}{8}", "undecided"),  # % is /100, a decimal for a fraction
        (r"12.5\%", "12.5", "equal"),  # the unit dropped
        (r"17\%", r"\frac{1}{6}", "undecided"),  # whole percents: 16.67 rounds to 17
        (r"20\%", r"\frac{1}{6}", "wrong"),
        ("0.35", "35", "undecided"),  # a percent written without its sign
        ("35", "0.35", "undecided"),
        ("0.36", "35", "wrong"),
        (r"\frac{\pi}{4}", "45", "undecided"),  # radians for degrees without the ° sign
        ("45", r"\frac{\pi}{4}", "undecided"),
        (r"\frac{\pi}{3}", "45", "wrong"),
    ],
)
def test_decimals_percent_and_units(pred, gold, expected):
    assert check(pred, gold) == expected


# -- intervals and inequalities: the same set, read either way round ---------------------------

_FLIPPED = {"<": ">", ">": "<", r"\le": r"\ge", r"\ge": r"\le"}
_AS_INTERVAL = {  # x op 3 as an interval, written out by hand
    "<": r"(-\infty, 3)",
    r"\le": r"(-\infty, 3]",
    ">": r"(3, +\infty)",
    r"\ge": r"[3, +\infty)",
}


@pytest.mark.parametrize("op", list(_AS_INTERVAL))
@pytest.mark.parametrize("interval_op", list(_AS_INTERVAL))
def test_inequalities_against_intervals(op, interval_op):
    expected = "equal" if op == interval_op else "wrong"
    assert check(f"t {op} 3", _AS_INTERVAL[interval_op]) == expected
    assert check(f"3 {_FLIPPED[op]} t", _AS_INTERVAL[interval_op]) == expected


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("7 > w > -2", "(-2, 7)", "equal"),
        (r"7 \ge w > -2", "(-2, 7]", "equal"),
        ("7 > w > -2", "[-2, 7)", "wrong"),
        ("1 < w > 0", r"(1, \infty)", "undecided"),  # no interval: the judge's
        (r"-\infty < w < 4", r"(-\infty, 4)", "undecided"),
        ("w < -1, w > 2", r"(-\infty,-1)\cup(2,\infty)", "undecided"),  # a comma: "and" or "or"?
        (r"w < -1 \text{ or } w > 2", r"(-\infty,-1)\cup(2,\infty)", "equal"),
    ],
)
def test_chains_and_unions(pred, gold, expected):
    assert check(pred, gold) == expected


# -- roundings inside structures: the judge's, never confidently wrong ------------------------


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("(0, 2.24)", r"(0, \sqrt{5})", "undecided"),  # √5 = 2.236…
        (r"[1.73, \infty)", r"[\sqrt{3}, \infty)", "undecided"),
        ("x > 2.24", r"(\sqrt{5}, \infty)", "undecided"),
        (r"[2.24, \infty)", r"(\sqrt{5}, \infty)", "wrong"),  # brackets differ: no rounding
        ("(0, 2.5)", r"(0, \sqrt{5})", "wrong"),  # 12 % off: no rounding
        (r"\{0.67, 2\}", r"\{\frac{2}{3}, 2\}", "undecided"),
        (
            r"\begin{pmatrix} 0.14 \\ 3 \end{pmatrix}",
            r"\begin{pmatrix} \frac17 \\ 3 \end{pmatrix}",
            "undecided",
        ),
        ("2.24", r"\{\sqrt{5}\}", "undecided"),
        ("(0, 2)", "(0, 3)", "wrong"),  # no decimals: exact values differ
        (r"(0, 2.24)\cup(3, 4)", r"(0, \sqrt{5})\cup(3, 4)", "undecided"),
        (r"(0, 2.24)\cup(3, 5)", r"(0, \sqrt{5})\cup(3, 4)", "wrong"),
    ],
)
def test_roundings_inside_structures(pred, gold, expected):
    assert check(pred, gold) == expected


def test_an_integer_gold_is_no_rounding():
    assert check("1.27", "1") == "wrong"
    assert check("-2.89", "-3") == "wrong"
    assert check(r"\frac{5}{6}", "0.8") == "undecided"  # 0.8 may be the gold rounded


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("3,75", "3.75", "undecided"),  # a decimal comma, or the list 3, 75
        ("3.75", "3,75", "undecided"),
        ("0,25", r"\frac{1}{4}", "undecided"),
        ("3,75", "3.7", "wrong"),  # neither reading matches
        ("48,125", "48125", "equal"),  # a thousands group: one number
    ],
)
def test_a_decimal_comma_is_the_judges(pred, gold, expected):
    assert check(pred, gold) == expected


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        (r"12 \text{ days}", r"12 \text{ weeks}", "undecided"),  # the same number, two units
        (r"12 \text{ km}", r"12 \text{ m}", "undecided"),
        (r"12 \text{ kg}", r"12 \text{ km}", "undecided"),  # two quantities
        (r"12 \text{ km}^2", r"12 \text{ km}", "undecided"),  # area against length
        (r"12 \text{ day}", r"12 \text{ days}", "equal"),  # a plural is one unit
        (r"12 \text{ hrs}", r"12 \text{ hours}", "equal"),  # two spellings of one unit
        (r"12 \text{ square feet}", r"12 \text{ ft}^2", "equal"),
        (r"12 \text{ red apples}", r"12 \text{ apples}", "equal"),  # what is counted, no unit
        (r"12 \text{ Days}", "12", "equal"),  # the unit dropped
        (r"13 \text{ days}", r"12 \text{ days}", "wrong"),
    ],
)
def test_two_units_are_the_judges(pred, gold, expected):
    assert check(pred, gold) == expected


def test_unit_measures():
    assert measure("Hours") == measure("hr") == ("time", 3600.0)
    assert measure("km^2") == ("length^2", 1e6)
    assert measure("cubic inches") == ("length^3", 0.0254**3)
    assert measure("candies") is None
    assert different_measures("cm", "m") and not different_measures("feet", "ft")


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        (r"w \lt 4", r"(-\infty, 4)", "equal"),  # \lt is <
        (r"4 \gt w", r"(-\infty, 4)", "equal"),
        (r"w \gt 4", r"(-\infty, 4)", "wrong"),
        (r"\varnothing", r"\emptyset", "equal"),
        (r"w \neq 2", r"w \ne 2", "equal"),
    ],
)
def test_other_names_of_one_symbol(pred, gold, expected):
    assert check(pred, gold) == expected


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("6, 2, 9", r"9 \text{ or } 2 \text{ or } 6", "equal"),  # "or": alternatives, no order
        ("s=6, s=2, s=9", "9, 6, 2", "equal"),  # one name for every value: solutions
        ("6, 2, 9", "9, 2, 6", "undecided"),  # three unsorted values: a, b, c may be meant
        ("6, 2, 9", "2, 6, 9", "equal"),  # sorted: a solution set listed in order
    ],
)
def test_solution_sets_have_no_order(pred, gold, expected):
    assert check(pred, gold) == expected


# -- every exact writing of one value or one interval is equal to every other ------------------


def _tex(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    sign = "-" if v < 0 else ""
    return rf"{sign}\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


def _value_writings(v: Fraction) -> list[str]:
    n, d = v.numerator, v.denominator
    out = [_tex(v), f"x = {_tex(v)}", rf"\dfrac{{{n}}}{{{d}}}", f"({n})/({d})"]
    if d == 1 and abs(n) >= 1000:
        out.append(f"{n:,}")  # thousands separators
    if d > 1 and abs(n) > d:  # a mixed number
        out.append(rf"{'-' if n < 0 else ''}{abs(n) // d}\frac{{{abs(n) % d}}}{{{d}}}")
    if 10**6 % d == 0:  # a terminating decimal, and the same value in percent
        out.append(_decimal(v) if d > 1 else f"{n}.0")
        out.append(_decimal(v * 100) + r"\%")
    return out


def _decimal(v: Fraction) -> str:
    """The exact decimal digits of a value whose denominator divides 10^6."""
    scaled = abs(v) * 10**6
    assert scaled.denominator == 1
    whole, frac = divmod(scaled.numerator, 10**6)
    digits = f"{whole}.{frac:06d}".rstrip("0").rstrip(".")
    return ("-" if v < 0 else "") + digits


@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=-30000, max_value=30000),
    st.sampled_from([1, 2, 3, 4, 5, 7, 8, 12, 16, 25, 40]),
)
def test_exact_writings_of_one_value_are_equal_within_a_notation(top, bottom):
    def decimal(w: str) -> bool:  # a digit after the point that is not zero
        return re.search(r"\.\d*[1-9]", w) is not None

    def fraction(w: str) -> bool:
        return "frac" in w or "/" in w

    writings = _value_writings(Fraction(top, bottom))
    for pred in writings:
        for gold in writings:
            # a decimal against a fraction: the question may prescribe either notation
            across = (decimal(pred) and fraction(gold)) or (decimal(gold) and fraction(pred))
            expected = "undecided" if across else "equal"
            assert check_answer(pred, gold) == expected, (pred, gold)


_LOWER = {"(": "<", "[": r"\le"}
_UPPER = {")": "<", "]": r"\le"}
_GREATER = {"<": ">", r"\le": r"\ge"}


def _interval_writings(a: Fraction, b: Fraction, left: str, right: str) -> list[str]:
    lo, hi, op1, op2 = _tex(a), _tex(b), _LOWER[left], _UPPER[right]
    return [
        f"{left}{lo},{hi}{right}",
        rf"\left{left} {lo}, {hi} \right{right}",
        f"{lo} {op1} x {op2} {hi}",
        rf"x \in {left}{lo}, {hi}{right}",
        rf"\{{x \mid {lo} {op1} x {op2} {hi}\}}",
        f"{hi} {_GREATER[op2]} x {_GREATER[op1]} {lo}",
    ]


@settings(max_examples=15, deadline=None)
@given(
    st.fractions(min_value=-50, max_value=50, max_denominator=3),
    st.fractions(min_value=Fraction(1, 5), max_value=40, max_denominator=5),
)
def test_writings_of_one_interval_are_equal_and_other_brackets_never(a, width):
    b = a + width
    for left, right in product("([", ")]"):
        same = _interval_writings(a, b, left, right)
        for pred, gold in product(same, same):
            assert check_answer(pred, gold) == "equal", (pred, gold)
        for other in product("([", ")]"):
            if other != (left, right):
                for pred, gold in product(same[:3], _interval_writings(a, b, *other)[:3]):
                    assert check_answer(pred, gold) != "equal", (pred, gold)


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("(8,2)", r"\{2,8\}", "undecided"),  # the same values: solutions, or an ordered answer
        (r"\{2,8\}", "(8,2)", "undecided"),
        ("(8,2,5)", r"\{2,5,8\}", "undecided"),
        ("(8,2,4)", r"\{2,5,8\}", "wrong"),
        (r"\{2,8\}", "(2,8,5)", "wrong"),
    ],
)
def test_a_tuple_against_a_set(pred, gold, expected):
    assert check(pred, gold) == expected


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        ("②④", "④②", "equal"),  # circled numbers name propositions: a set, like letters
        ("②④", "②③", "wrong"),
        ("②④", "2,4", "undecided"),
        (r"\{t|t<-3 或 t>5\}", r"(-\infty,-3)\cup(5,+\infty)", "equal"),  # 或 is "or"
        ("t<-3或t>5", r"(-\infty,-3)\cup(6,+\infty)", "wrong"),
        (r"[n\pi, n\pi+\frac{\pi}{2}](n\in\mathbb{Z})", r"[n\pi, n\pi+\frac{\pi}{2}]", "equal"),
        (r"m=\frac{\pi}{3}+2t\pi, t\in Z", r"\frac{\pi}{3}+2t\pi", "equal"),
        (r"m=\frac{\pi}{3}+t\pi, t\in Z", r"\frac{\pi}{3}+2t\pi", "undecided"),
    ],
)
def test_chinese_answer_forms(pred, gold, expected):
    assert check(pred, gold) == expected


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        (r"\cos 60^\circ", r"\frac{1}{2}", "equal"),  # a degree inside a trig function is π/180
        (r"\tan 45^{\circ}", "1", "equal"),
        (r"2\sin 45°", r"\sqrt{2}", "equal"),
        (r"\cos 61^\circ", r"\frac{1}{2}", "wrong"),
        (r"60^\circ", "60", "equal"),  # a bare angle still reads as 60 or π/3
        (r"60^\circ", r"\frac{\pi}{3}", "equal"),
        # degrees inside an expression: read as degrees or as radians, on both sides
        (r"90^\circ+15^\circ", r"105^\circ", "equal"),
        (r"90^\circ+15^\circ", r"\frac{7\pi}{12}", "equal"),
        (r"90^\circ+15^\circ", "105", "equal"),
        (r"90^\circ+15^\circ", r"100^\circ", "wrong"),
        (r"(20^\circ, 70^\circ)", r"(\frac{\pi}{9}, \frac{7\pi}{18})", "equal"),
        (r"(20^\circ, 70^\circ)", r"(70^\circ, 20^\circ)", "undecided"),
        (r"B = 20^\circ", r"20^\circ", "equal"),
    ],
)
def test_degrees_inside_expressions(pred, gold, expected):
    assert check(pred, gold) == expected


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        # a repeating decimal is its fraction, but a decimal for a fraction is the judge's
        (r"0.\overline{6}", r"\frac{2}{3}", "undecided"),
        (r"2.\overline{18}", r"\frac{24}{11}", "undecided"),
        (r"0.8\overline{3}", r"\frac{5}{6}", "undecided"),
        (r"0.\overline{6}", r"0.\overline{66}", "equal"),  # one value, one notation
        (r"0.\dot{6}", r"0.\overline{6}", "equal"),  # the dot notation
        (r"0.\dot{2}\dot{7}", r"0.\overline{27}", "equal"),
        (r"0.\overline{6}", r"\frac{3}{5}", "wrong"),
        (r"0.\overline{6}", "0.667", "equal"),  # the gold is the rounding
    ],
)
def test_repeating_decimals(pred, gold, expected):
    assert check(pred, gold) == expected


def test_lg_is_the_common_logarithm():
    assert check(r"\lg 1000", "3") == "equal"
    assert check(r"\lg 4 + \lg 25", "2") == "equal"
    assert check(r"\lg 1000", "4") == "wrong"


def test_unit_slips_of_huge_exact_values():
    assert check("3^{700}", "3^{700}+1") == "wrong"  # beyond doubles: exact arithmetic
    assert check(r"100\cdot3^{700}", "3^{700}") == "undecided"  # a factor 100, exactly


def test_the_documented_examples_hold():
    """Every "`answer` vs `gold`" example in docs/answer-classes.md has the outcome its table
    states (the decided table: its outcome column; the other table: undecided)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "answer-classes.md").read_text()
    decided, rest = text.split("## Classes the rules leave undecided")
    pairs = re.compile(r"`([^`]+)` vs `([^`]+)`")
    checked = 0
    for block, default in ((decided, None), (rest.split("Anything else")[0], "undecided")):
        for line in block.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not line.startswith("|") or len(cells) < 3:
                continue
            allowed = {default} if default else set(cells[2].replace(" ", "").split("/"))
            for pred, gold in pairs.findall(cells[1]):
                assert check_answer(pred, gold) in allowed, (pred, gold, allowed)
                checked += 1
    assert checked >= 60


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        (r"\frac{10}{14}", r"\frac{5}{7}", "undecided"),  # not in lowest terms: the grader's call
        ("-10/14", r"-\frac{5}{7}", "undecided"),
        (r"\frac{6}{3}", "2", "undecided"),
        (r"\frac{5}{7}", r"\frac{10}{14}", "equal"),  # the reference's own writing
        (r"\frac{10}{14}", r"\frac{15}{21}", "equal"),
        (r"\frac{10}{14}", r"\frac{4}{7}", "wrong"),
    ],
)
def test_a_fraction_not_in_lowest_terms_is_the_judges(pred, gold, expected):
    assert check(pred, gold) == expected
