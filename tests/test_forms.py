"""Rules for other writings of one value (issue 11): expected outcomes written by hand.

'equal' only when the reading is unambiguous, 'undecided' where a judge could go either way,
'wrong' only when no reading of the notation matches.
"""

from fractions import Fraction

import pytest

from gpassk_oc.core.answers.canonical import canonical_answer
from gpassk_oc.core.answers.forms import decorated, elements, mixed_number
from gpassk_oc.core.answers.numeric import EXACT, FLOAT, PRECISE, numeric_value
from gpassk_oc.core.answers.rules import fast_check


def check(pred: str, gold: str):
    return fast_check(canonical_answer(pred), canonical_answer(gold))


@pytest.mark.parametrize(
    "pred, gold, expected",
    [
        # approximations: 600/7 = 85.714285…
        # a rounding for an exact gold: right unless the problem asks for the exact value
        ("85.71", r"\frac{600}{7}", "undecided"),  # correctly rounded, 4 significant digits
        ("85.72", r"\frac{600}{7}", "undecided"),  # within one unit of the last digit
        ("85.7", r"\frac{600}{7}", "undecided"),
        ("86", r"\frac{600}{7}", "wrong"),  # an integer is not a rounding of an exact value
        ("784", "785.12", "undecided"),  # 0.14 % from a decimal (measured) reference
        (r"17.5\%", r"\frac{1}{8}", "wrong"),  # 0.175: the last digit of 17.5% is 0.001
        (r"33.3\%", r"\frac{1}{3}", "undecided"),
        (r"\frac{9}{25}", r"18.8^\circ", "wrong"),
        (r"118\%", r"117.95\%", "undecided"),  # an integer rounding of a decimal reference
        (r"10^\circ", r"17.5\%", "wrong"),  # π/18 = 0.1745…, yet an angle is no percent
        # variables get values of their own: y-x and k-n are not the same constant
        ("y=x+1", "k=n+1", "undecided"),
        ("y=x+1", "y-x=1", "equal"),
        ("780", "785.12", "wrong"),  # 0.65 %
        (r"\frac{15840}{\pi}", "5040", "undecided"),  # 5042.0…: π taken as 22/7
        (r"\frac{15840}{\pi}", "5000", "wrong"),
        ("785", "784", "wrong"),  # exact integers
        ("85.9", r"\frac{600}{7}", "wrong"),
        (r"\frac{1587}{52}", "30.52", "undecided"),  # 30.5192…: a fraction for a decimal
        (r"\sqrt{3}", "1.732", "equal"),  # 1.7320…: the gold is the rounding
        ("0.5", "0.6", "wrong"),  # both exact at one decimal
        ("0.3", r"\frac{1}{3}", "wrong"),  # one significant digit is no approximation
        ("1.41", r"\sqrt{2}", "undecided"),
        (r"\frac{22}{7}", "3.14", "undecided"),  # a rounding of 3.142857…, but a fraction
        (r"\sqrt{2}", "1.41", "equal"),  # three significant digits
        ("1.42", r"\sqrt{2}", "undecided"),
        ("300", "299.94", "undecided"),  # a coarser rounding of a decimal gold
        # percent: 17.5 or 0.175
        (r"17.5\%", "17.5", "equal"),
        ("17.5%", "0.175", "equal"),
        (r"17.5\%", "17", "wrong"),
        # degrees: 30 or π/6
        (r"30^\circ", r"\frac{\pi}{6}", "equal"),
        ("30", r"30^{\circ}", "equal"),
        ("30°", "30", "equal"),
        (r"80", r"75^\circ", "wrong"),
        # currency, thousands separators, units
        (r"\$45.00", "45", "equal"),
        ("120,000", "120000", "equal"),
        (r"3,\!110,\!400", "3110400", "equal"),
        (r"34\text{ hours}", "34", "equal"),
        (r"130\text{ m}", "160", "wrong"),
        (r"2\text{ m}", "200", "undecided"),  # 2 m = 200 cm: a conversion the problem may ask for
        (r"20 \text{ cm}", r"20\text{ cm}", "equal"),
        # mixed numbers: 21 13/14 = 307/14
        (r"21\frac{13}{14}", r"\frac{307}{14}", "equal"),
        (r"21\frac{13}{14}", "21.93", "undecided"),  # the rounding, but a fraction
        (r"21\frac{13}{14}", "21.5", "wrong"),
        (r"2\frac{1}{2}", "1", "undecided"),  # only the product reading 2·½ matches
        (r"2\frac{1}{2}", "3", "wrong"),
        # \pm and lists
        (r"2\pm\sqrt{3}", r"2+\sqrt{3}, 2-\sqrt{3}", "equal"),
        (r"\pm 2", "2, -2", "equal"),
        (r"\pm 1", "1,-1,7,-7", "undecided"),  # some of the answers
        ("3", "3, -2", "undecided"),  # one of several answers
        ("25, 100", "100", "undecided"),  # extra answers besides the gold's
        ("-2, 3", "3, -2", "equal"),  # two solutions, listed in either order
        (r"7 \text{ and } -5", "-5,7", "equal"),
        ("3, -2, 1", "-2, 1, 3", "equal"),  # three sorted gold values: a solution set
        ("2, 3, 4", "2, 4, 3", "undecided"),  # unsorted gold: a, b, c in that order
        (r"\{3, -2\}", "3, -2", "equal"),
        (r"\{3, -2\}", "-2, 3", "equal"),  # written as a set
        ("20, 20", "20", "equal"),  # the same answer twice
        ("4, 5", "1, 2", "wrong"),  # none of the gold's, gold answers missing
        ("x=-1, x=2", "-1, 2", "equal"),
        ("(3,2),(-3,2)", "(-3,2),(3,2)", "equal"),  # a list of tuples is a solution set
        ("(1000, 10)", "10^{3},10", "equal"),  # a pair against a bare list
        (
            r"(\frac{1}{6},\frac{1}{3})",
            r"(\frac{1}{4},\frac{1}{27})",
            "wrong",
        ),  # points, not intervals
        (r"(2,\frac{\pi}{2})", r"(2,\pi/2)", "equal"),
        ("(1,2,3)", "(1,3,2)", "undecided"),  # reordered: right if the problem is symmetric
        ("(1,2,3)", "(1,3,3)", "wrong"),
        (r"\{(4,2),(-4,2)\}", "(3,2),(-3,2)", "wrong"),
        (r"\quad(1,2)", "(1,2)", "equal"),
        # ratios, \approx, √
        ("20:3", "6.67", "equal"),
        ("2", "2:1", "equal"),
        (r"\frac{5}{8}", "5:8", "equal"),
        ("5:6", "5:8", "wrong"),
        (r"\frac{1+\sqrt{97}}{8}", r"\frac{1+\sqrt{97}}{8} \approx 1.36", "equal"),
        ("1.36", r"\frac{1+\sqrt{97}}{8}\approx1.36", "equal"),
        ("1.5", r"\frac{1+\sqrt{97}}{8}\approx1.36", "wrong"),
        ("2√2", r"2\sqrt{2}", "equal"),
        # named values, renamed functions, set-builder notation
        ("Largest = 9, Smallest = 4", "9, 4", "equal"),
        ("Ann: 4, Bob: 11, Cy: 6", "4,11,6", "equal"),
        ("Ann: 6, Bob: 11, Cy: 4", "4,6,11", "undecided"),  # names fix the order, the gold's not
        (r"(-7,16,5)", r"\begin{pmatrix} -7 \\ 16 \\ 5 \end{pmatrix}", "equal"),  # a vector
        (r"(-7,16,7)", r"\begin{pmatrix} -7 \\ 16 \\ 5 \end{pmatrix}", "wrong"),
        ("|r-s| = 16", "16", "equal"),
        (r"\lambda = 1/2", r"\frac{1}{2}", "equal"),
        ("E(2020, 1993) = 76", "76", "equal"),
        ("[-2, 7]", r"x \in [-2,7]", "equal"),
        ("f(x)=2x", "f(z)=2z", "equal"),
        ("f(x)=x+1", "f(z)=z", "undecided"),
        ("(-1, 1)", r"\{x|-1 < x < 1\}", "equal"),
        (
            r"(-\infty,-8)\cup(4,\infty)",
            r"(-\infty,-8)\cup(8,\infty)",
            "wrong",
        ),  # unions of intervals
        (r"(4,\infty)\cup(-\infty,-8)", r"(-\infty,-8)\cup(4,+\infty)", "equal"),
        (r"(-2,-1)", r"(-\sqrt{11},-2)\cup(\sqrt{11},9)", "wrong"),  # one piece against two
        # unions are merged before comparing: touching pieces join unless the point is missing
        (r"(0,1)\cup[1,2)", "(0,2)", "equal"),
        (r"(0,1)\cup(1,2)", "(0,2)", "wrong"),
        (r"[0,3]\cup[1,2]", "[0,3]", "equal"),
        (r"(0,1]\cup[1,2]", "[0,2]", "wrong"),
        (r"\{1,2\}\cup[3,4]", r"[3,4]\cup\{2,1\}", "equal"),
        (r"(-\infty,-2]\cup\{1\}", r"a \leqslant -2 \text{ or } a = 1", "equal"),
        (r"x<1 \text{ or } x>2", r"(-\infty,1)\cup(2,\infty)", "equal"),
        (r"x=1 \text{ or } x=2", "2", "undecided"),  # solutions, not a union of sets
        # an equation against an expression lacking one of its variables: solved for it
        ("-4x^2 + 4x - 2", "y + 1 = - (2x - 1)^2", "equal"),
        ("-4x^2+4x", "y+1=-(2x-1)^2", "undecided"),
        ("1-x", "x+y=1", "equal"),
        ("x", "x+y=1", "undecided"),
        # solution families: the integer parameter's name is not part of the answer
        (r"n\pi", r"x = k\pi", "equal"),
        (r"2n\pi", r"k\pi", "undecided"),
        ("n+1", "x+1", "undecided"),  # x is no integer parameter
        ("n+1", "k+1", "undecided"),
        ("n", "k", "undecided"),  # only angle families
        # intervals and pairs with variables: endpoint by endpoint, never confidently wrong
        (
            r"[-\frac{5\pi}{12} + k\pi, \frac{\pi}{12} + k\pi]",
            r"[k\pi-\frac{5\pi}{12},k\pi+\frac{\pi}{12}]",
            "equal",
        ),
        (
            r"(-\frac{5\pi}{12} + k\pi, \frac{\pi}{12} + k\pi)",
            r"[k\pi-\frac{5\pi}{12},k\pi+\frac{\pi}{12}]",
            "undecided",
        ),
        ("(1, 2k)", "(1, 3k)", "undecided"),
        ("(k),(1,2)", "(k),(1,2)", "equal"),
        ("(k),(1,2k)", "(k),(1,3k)", None),
        (r"\{1,2\}", r"k \geq 2", "undecided"),  # k may be an integer
        ("(20, 30)", "20<P<30", "equal"),
        (r"\frac{1}{2} \leq x \leq 8", r"[\frac{1}{2}, 8]", "equal"),
        (r"x > \sqrt{2}", r"(\sqrt{2}, \infty)", "equal"),
        (r"x \ge \pi", r"(\pi, \infty)", "wrong"),
        # exact arithmetic where doubles overflow
        ("2^{100}", "1267650600228229401496703205376", "equal"),
        ("2^{100}+1", "1267650600228229401496703205376", "wrong"),
        ("3^{2021}-2^{2021}", "3^{2021}-2^{2021}+0", "equal"),
        # variables on one side only: not confidently wrong, no math-verify call
        ("T-18", "14", "undecided"),
        ("2F_{84}", "-2", "undecided"),
        # notation sympy cannot decide (sums, ellipses, floors): the judge's, without a worker call
        (r"\sum_{k=1}^{n}k", r"\frac{n(n+1)}{2}", "undecided"),
        (r"\lfloor\frac{n}{2}\rfloor", r"\lfloor\sqrt{n-1}\rfloor", "undecided"),
        (r"a_1a_2\cdots a_n", "n!", "undecided"),
        ("(D)", "D", "equal"),
        (r"\text{(B)}", "D", "wrong"),  # option letters in parentheses
        # unicode and Chinese notation
        ("(-∞, -3) ∪ (3, +∞)", r"(-\infty,-3)\cup(3,\infty)", "equal"),
        ("根号3", r"\sqrt{3}", "equal"),
        ("2 × 10^(-10)", r"2 \times 10^{-10}", "equal"),
        # qualifiers: equal when the rest is, else the judge's (the qualifier may matter)
        ("f(n) = 1", r"f(x) = 1 \text{ for all } x \in \mathbb{N}", "equal"),
        (r"x = 2k\pi \text{ for } k \in \mathbb{Z}", r"2k\pi", "equal"),
        ("1", r"2 \text{ for all } x", "undecided"),
        ("0", r"\text{only } x=0", "equal"),
        (r"\text{forty}", "40", "undecided"),  # no qualifier
        # tuple assignments and "and" lists
        ("(f(n), g(n)) = (n, 1)", "$f(n)=n$, $g(n)=1$", "equal"),
        ("(f(n), g(n)) = (n, 2)", "$f(n)=n$, $g(n)=1$", "undecided"),
        ("(a, b, c) = (1, 2)", "a=1, b=2", None),  # counts differ: not rewritten
        (r"f(x)=x \quad\text{and}\quad f(x)=-x", "f(x)=x, f(x)=-x", "equal"),
        (r"7 \text{ and } -6", "-5,7", "wrong"),  # "and" alone: still a list
        # approximations count the digits of the number, never of its unit or percent sign
        (r"1.2 \text{cm}", "1.24", "undecided"),  # 2 significant digits
        (r"3.1\%", r"3.14\%", "undecided"),
        (r"0.5\text{ m}", "0.54", "wrong"),  # 1 significant digit: no rounding
        (r"1.24\text{ cm}", "1.24", "equal"),
        # a mixed number with a unit is its value, not a product
        ("3", r"3\frac{1}{2}\text{ hours}", "wrong"),
        ("3.5", r"3\frac{1}{2}\text{ hours}", "undecided"),  # a decimal for a fraction
        (r"1.5\text{ hours}", r"3\frac{1}{2}\text{ hours}", "wrong"),
        # a number against a set: a one-element set is its element; one of several → the judge's
        (r"\{3\}", "3", "equal"),
        (r"x \in \{3\}", "3", "equal"),
        ("1", r"\{1\}", "equal"),
        ("4", r"\{3\}", "wrong"),
        ("2", r"\{1, 2\}", "undecided"),
        ("5", r"\{1, 2\}", "wrong"),
        ("5", "[1, 2]", "wrong"),  # never an interval
    ],
)
def test_forms(pred, gold, expected):
    assert check(pred, gold) == expected


def test_decorated_readings():
    assert decorated(canonical_answer(r"\$1,200"), FLOAT) == (1200.0, "unit", "")
    assert decorated(canonical_answer(r"30^\circ"), FLOAT).kind == "degree"
    assert decorated(canonical_answer(r"40\text{ cubic inches}"), FLOAT).unit == "cubicinches"
    assert decorated(canonical_answer("1, 2"), FLOAT) is None
    assert decorated("2x", FLOAT) is None  # one letter is a variable


def test_mixed_numbers_and_elements():
    assert mixed_number(r"21\frac{13}{14}") == Fraction(307, 14)
    assert mixed_number(r"-1\frac{1}{2}") == Fraction(-3, 2)
    assert mixed_number(r"2\frac{3}{2}") is None  # improper: a product, not a mixed number
    assert elements(r"2\pm\sqrt{3}") == [r"2+\sqrt{3}", r"2-\sqrt{3}"]
    assert elements(r"x=\pm1") == ["1", "-1"]
    assert elements("(1,2)") is None and elements(r"1\text{and}2") == ["1", "2"]


@pytest.mark.parametrize(
    "latex, value",
    [
        ("3^{40}", Fraction(3**40)),
        (r"\frac{1}{3}+2^{10}", Fraction(3073, 3)),
        ("0.25", Fraction(1, 4)),
        (r"2\sqrt{4}", None),
        (r"\pi", None),
        ("(2^{4096})^{4096}", None),  # not rational / too large
    ],
)
def test_exact_numbers(latex, value):
    assert numeric_value(latex, EXACT) == value


def test_number_systems_are_explicit():
    a, b = numeric_value("2^{40}+1", FLOAT), numeric_value("2^{40}", FLOAT)
    assert abs(a - b) / b < 1e-9  # doubles cannot tell them apart …
    assert numeric_value("2^{40}+1", PRECISE) != numeric_value("2^{40}", PRECISE)  # 50 digits can


from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st

_PIECES = [
    "1",
    "2",
    "0.5",
    "x",
    "k",
    "=",
    ",",
    "(",
    ")",
    "[",
    "]",
    "\\{",
    "\\}",
    "\\frac{1}{2}",
    "\\sqrt{2}",
    "\\pi",
    "^",
    "{",
    "}",
    "\\%",
    "^\\circ",
    "\\pm",
    "\\cup",
    "<",
    "\\le",
    ":",
    "\\text{cm}",
    "\\$",
    "3,000",
    "\\approx",
    "\\infty",
    "-",
    "+",
    "/",
    "A",
    "|",
    "\\begin{pmatrix}1\\\\2\\end{pmatrix}",
    "\\cdots",
    "e",
    "i",
    "2^{100}",
    "根号",
    "√",
]


@example(["1"], ["i", r"\approx", "1"])  # a complex gold (mpmath mpc) against a real: raised
@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=10), st.lists(st.sampled_from(_PIECES), max_size=10)
)
def test_rules_never_raise_and_are_sane(pred, gold):
    p, g = canonical_answer("".join(pred)), canonical_answer("".join(gold))
    outcome = fast_check(p, g)
    assert outcome in (None, "equal", "wrong", "undecided")
    if p and p == g:
        assert outcome == "equal"
