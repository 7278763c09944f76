"""Closed numeric values of canonical LaTeX answers, without sympy (pure core).

``2\\sqrt{3}``, ``\\frac{\\pi}{4}``, ``\\ln 2+\\ln 3``, ``e^2``, ``3+4i``: a recursive-descent
evaluator over a whitelist of tokens (anything else gives None). math-verify costs ~2 ms per
new pair; this evaluator ~20 µs, so most numeric answers never reach the worker pool.

Two number systems, always passed explicitly (``num=FLOAT`` / ``num=PRECISE``): doubles
decide quickly (most distinct answers are plainly different), and every "equal" found in
doubles is re-decided in a private 50-digit mpmath context, because in doubles 2^{40}+1 and
2^{40} are "equal within 1e-9". Ambiguous notation (``2^10``, ``\\ln 2x``, ``\\log 8``) is
refused rather than guessed.
"""

from __future__ import annotations

import cmath
import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal, NamedTuple

from mpmath.ctx_mp import MPContext

from gpassk_oc.core.answers.arguments import optional_answer_text
from gpassk_oc.core.answers.canonical import as_rational

Outcome = Literal["equal", "wrong", "undecided"]


class Numbers(NamedTuple):
    """One number system: constructors, constants and tolerances."""

    number: Callable[[str], Any]
    pi: Any
    e: Any
    i: Any
    funcs: dict
    isfinite: Callable[[Any], bool]
    complex_type: type
    rel_equal: float  # numerically equal: relative difference below this
    max_exponent: int = 64  # larger exponents are refused (doubles overflow, sympy hangs)


_MP = MPContext()
_MP.dps = 50
FLOAT = Numbers(
    float,
    math.pi,
    math.e,
    1j,
    {
        "\\ln": math.log,
        "\\log": math.log,
        "\\lg": math.log10,  # lg is the common logarithm (ISO 80000-2; Chinese textbooks)
        "\\sin": math.sin,
        "\\cos": math.cos,
        "\\tan": math.tan,
        "\\exp": math.exp,
        "\\arcsin": math.asin,
        "\\arccos": math.acos,
        "\\arctan": math.atan,
        "gamma": math.gamma,
    },
    cmath.isfinite,
    complex,
    1e-9,
)
PRECISE = Numbers(
    _MP.mpf,
    +_MP.pi,
    +_MP.e,
    _MP.mpc(0, 1),
    {
        "\\ln": _MP.log,
        "\\log": _MP.log,
        "\\lg": _MP.log10,
        "\\sin": _MP.sin,
        "\\cos": _MP.cos,
        "\\tan": _MP.tan,
        "\\exp": _MP.exp,
        "\\arcsin": _MP.asin,
        "\\arccos": _MP.acos,
        "\\arctan": _MP.atan,
        "gamma": _MP.gamma,
    },
    _MP.isfinite,
    _MP.mpc,
    1e-30,
)
# exact rationals: integers and fractions of any size (3^{2021}-2^{2021}), no constants or
# functions (a None constant fails the evaluation), exponents up to 4096
EXACT = Numbers(
    Fraction, None, None, None, {}, lambda v: isinstance(v, Fraction), complex, 0.0, 4096
)
_FUNCS = FLOAT.funcs  # the accepted function names

# after a function name: no letter, or one letter that is its argument (canonical forms drop
# spaces: \\tanx is tan x) — but not h (\\tanh) and no longer run of letters
_FUNCTION_END = r"(?=[a-gi-zA-Z](?![a-zA-Z])|(?![a-zA-Z]))"
_TOKEN_RE = re.compile(
    r"\d+(?:\.\d*)?|\.\d+|\\frac|\\sqrt|\\pi|\\cdot|\\times|\\infty|"
    r"\\(?:ln|lg|log|sin|cos|tan|exp|arcsin|arccos|arctan)" + _FUNCTION_END + r"|\\binom|!|"
    r"[a-zA-Z]_(?:\{[a-zA-Z0-9]+\}|[a-zA-Z0-9])|[-+*/^_(){}\[\]]|[a-zA-Z]"
)
# variables: one letter, optionally with a simple subscript (x, N, x_1, a_{10}; not e, i:
# constants); a run of letters (sin, ab) is not accepted
_VARIABLE_RE = re.compile(r"[a-zA-Z](?:_(?:\{[a-zA-Z0-9]+\}|[a-zA-Z0-9]))?")
_LETTER_RUN_RE = re.compile(r"(?<![\\a-zA-Z_])[a-zA-Z]{2,}")
# commands of _TOKEN_RE; canonical forms drop spaces, so \pia is \pi·a (\cdots is no \cdot)
_COMMANDS_RE = re.compile(
    r"\\(?:frac|sqrt|pi|cdot(?!s)|times|infty)|"
    r"\\(?:ln|lg|log|sin|cos|tan|exp|arcsin|arccos|arctan)" + _FUNCTION_END + r"|\\binom"
)
_MAX_LEN = 240  # longer answers are left to math-verify and the judge
# candidate points (irrational, so identities are not met by chance); the small positive
# ones keep \\sqrt{x}, \\ln x and \\arccos x defined when a negative or large one is not
_POINTS = (
    "0.6180339887",
    "1.4142135623",
    "-0.7320508075",
    "0.2360679774",
    "0.0413812651",
    "0.1715728752",
    "0.3819660112",
)
_REL_DIFFER = (
    1e-6  # confidently different: relative difference above this (math-verify rounds to 6 digits)
)


def _bits(value: Fraction) -> int:
    return value.numerator.bit_length() + value.denominator.bit_length()


def _tokens(text: str) -> list[str] | None:
    tokens = _TOKEN_RE.findall(text)
    if "".join(tokens) != text:
        return None
    return tokens


class _Eval:
    """Recursive-descent evaluator over the tokens of one canonical answer."""

    def __init__(self, tokens: list[str], num: Numbers, env: dict[str, Any] | None = None) -> None:
        self.t = tokens
        self.i = 0
        self.env = env or {}
        self.allow_complex = False  # set once the answer itself writes i
        self.num = num

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self) -> str:
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expr(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self) -> float:
        value = self.unary()
        while True:
            tok = self.peek()
            if tok in ("*", "/", "\\cdot", "\\times"):
                self.take()
                rhs = self.unary()
                value = value / rhs if tok == "/" else value * rhs
            elif (
                tok in ("(", "{", "\\frac", "\\sqrt", "\\pi")
                or tok in _FUNCS
                or (tok is not None and tok[0].isalpha())
                or (
                    tok is not None
                    and (tok[0].isdigit() or tok[0] == ".")
                    and self.t[self.i - 1] in (")", "}")
                )
            ):  # \sqrt{3}7, (2)3
                value = value * self.power()  # implicit product: 2\sqrt{3}, 3\pi
            else:
                return value

    def unary(self) -> float:
        if self.peek() in ("+", "-"):
            return -self.unary() if self.take() == "-" else self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() == "!":
            self.take()
            if self.peek() == "!":
                raise ValueError("double factorial")
            base = self.factorial(base)
        if self.peek() == "^":
            self.take()
            exponent = self.group_or_atom()
            if abs(exponent) > self.num.max_exponent or (
                self.num.max_exponent <= 64 and abs(base) > 1e12
            ):
                raise ValueError("exponent too large")
            if self.num is EXACT and (
                # EXACT arithmetic runs on Fractions (the number type of EXACT)
                exponent.denominator != 1  # type: ignore[attr-defined]
                or base == 0
                and exponent < 0
                or _bits(base) * abs(exponent) > 200_000  # type: ignore[arg-type]
            ):
                raise ValueError("not a rational power of a reasonable size")
            ctype = self.num.complex_type
            if isinstance(exponent, ctype) or (
                isinstance(base, ctype) and exponent != int(exponent)
            ):
                raise ValueError("complex power: leave it to sympy")
            base = base**exponent
            if isinstance(base, ctype) and not self.allow_complex:
                raise ValueError("complex")
        return base

    def group_or_atom(self) -> float:
        tok = self.peek()
        if tok is not None and tok[0].isdigit() and len(tok) > 1:
            # 2^10 is 2¹0 to LaTeX but 1024 to its writer: ambiguous, let math-verify/judge decide
            raise ValueError("ambiguous bare multi-digit argument")
        if tok == "-":
            self.take()
            return -self.group_or_atom()
        return self.atom()

    def function(self, name: str) -> float:
        """\\ln 7, \\ln(7), \\log_2 8, \\sin^2(x); a bare argument followed by more factors
        (\\ln 2x: ln(2x) or ln(2)·x?) is ambiguous and refused; \\log needs a base."""
        base = None
        if self.peek() == "_":
            self.take()
            tok = self.peek()
            if tok is not None and tok.isdigit() and len(tok) > 1:
                # a subscript takes one character: \\log_28 is log₂ 8 (canonical form of \\log_2 8)
                self.t[self.i : self.i + 1] = [tok[0], tok[1:]]
            base = self.group_or_atom()
        elif name == "\\log":
            raise ValueError("\\log without a base: ln or log10?")
        power = None
        if self.peek() == "^":
            self.take()
            power = self.group_or_atom()
        bracketed = self.peek() in ("(", "{")
        arg = self.atom()
        nxt = self.peek()
        if (
            not bracketed
            and nxt is not None
            and (
                nxt in ("(", "{", "\\frac", "\\sqrt", "\\pi", "e")
                or nxt in _FUNCS
                or nxt[0].isalpha()
                or nxt[0].isdigit()
                or nxt == "^"
            )
        ):
            raise ValueError("ambiguous function argument")
        if isinstance(arg, self.num.complex_type):
            raise ValueError("function of a complex argument: leave it to sympy")
        value = self.num.funcs[name](arg)
        if isinstance(value, self.num.complex_type):  # mpmath continues ln(-1) into C; we don't
            raise ValueError("not real")
        if base is not None:
            value = value / self.num.funcs["\\ln"](base)
        if power is not None:
            value = value**power
        return value

    def factorial(self, x: Any) -> Any:
        """x! exactly for integers 0..1000, else Γ(x+1) (not in EXACT; poles refused)."""
        if isinstance(x, self.num.complex_type):
            raise ValueError("factorial of a complex number")
        if x == int(x):
            if not 0 <= x <= 1000:
                raise ValueError("factorial out of range")
            return self.num.number(str(math.factorial(int(x))))
        return self.num.funcs["gamma"](x + 1)  # KeyError in EXACT: not rational

    def atom(self) -> float:
        tok = self.take()
        if tok[0].isdigit() or tok[0] == ".":
            return self.num.number(tok)
        if tok == "\\pi":
            return self.num.pi
        if tok == "e":
            return self.num.e
        if tok == "i":  # the imaginary unit, as for math-verify
            self.allow_complex = True
            return self.num.i
        if tok in _FUNCS:
            return self.function(tok)
        if tok[0].isalpha():
            return self.env[tok]  # KeyError: no value given (numeric_value) -> None
        if tok in ("(", "{"):
            value = self.expr()
            if self.take() != (")" if tok == "(" else "}"):
                raise ValueError("unbalanced")
            return value
        if tok == "\\binom":
            n, k = self.group_or_atom(), self.group_or_atom()
            if (
                not isinstance(n, self.num.complex_type)
                and n == int(n)
                and k == int(k)
                and 0 <= int(n) <= 100_000
            ):
                return self.num.number(str(math.comb(int(n), int(k)) if k >= 0 else 0))
            return self.factorial(n) / (self.factorial(k) * self.factorial(n - k))
        if tok == "\\frac":
            num = self.group_or_atom()
            den = self.group_or_atom()
            return num / den
        if tok == "\\sqrt":
            root = self.num.number("2")
            if self.peek() == "[":
                self.take()
                root = self.expr()
                if self.take() != "]":
                    raise ValueError("unbalanced")
            radicand = self.group_or_atom()
            if radicand < 0 or root == 0:
                raise ValueError("not real")
            return radicand ** (1 / root)
        raise ValueError(f"unexpected {tok}")


def numeric_value(canonical: str, num: Numbers = FLOAT):
    """Value of a closed arithmetic LaTeX answer (``2\\sqrt{3}``, ``\\frac{\\pi}{4}``) in the
    number system *num* (a float, an mpmath number, or with ``EXACT`` a Fraction), else None."""
    canonical = optional_answer_text(canonical, "canonical") or ""
    if not canonical or len(canonical) > _MAX_LEN:
        return None
    if "\\overline" in canonical or "\\dot" in canonical:  # 0.\\overline{3}: a repeating decimal
        exact = as_rational(canonical)
        return None if exact is None else num.number(str(exact.numerator)) / exact.denominator
    tokens = _tokens(canonical)
    if not tokens or "\\infty" in tokens or "[" in tokens and "\\sqrt" not in tokens:
        return None
    return _finite_value(_Eval(tokens, num))


def variables(canonical: str) -> list[str] | None:
    """Variables (one letter, optionally subscripted: ``x``, ``N``, ``x_1``) of an arithmetic
    expression, or None if it is not one."""
    if not canonical or len(canonical) > _MAX_LEN or "=" in canonical:
        return None
    stripped = _COMMANDS_RE.sub(" ", canonical)
    if _LETTER_RUN_RE.search(stripped) or "\\" in stripped:
        return None
    # e is Euler's number and i the imaginary unit, never variables
    return sorted({v for v in _VARIABLE_RE.findall(stripped) if v not in ("e", "i")})


def _values_at(tokens: list[str], env: dict, num: Numbers):
    return _finite_value(_Eval(list(tokens), num, env))


def _finite_value(ev: _Eval):
    """The value of the whole token list, or None where it does not parse to the end, fails
    to evaluate, or is not finite."""
    try:
        value = ev.expr()
        if ev.i != len(ev.t) or not ev.num.isfinite(value):
            return None
    except (
        ValueError,
        IndexError,
        ZeroDivisionError,
        OverflowError,
        TypeError,
        KeyError,
        AttributeError,
    ):
        return None
    return value


def values_at_common_points(
    expressions: list[str], names: list[str], num: Numbers = FLOAT
) -> list[list] | None:
    """Values of every expression at the same three fixed irrational points, one list per
    expression; points where some expression is undefined (``\\sqrt{x}`` at x < 0,
    ``\\arccos`` beyond ±1) are skipped for further candidates; None if fewer than three
    points remain or an expression cannot be read."""
    maybe_tokens = [_tokens(c) for c in expressions]
    token_lists = [t for t in maybe_tokens if t and "\\infty" not in t]
    if len(token_lists) < len(maybe_tokens):
        return None
    out: list[list] = [[] for _ in expressions]
    number = num.number
    for k in range(len(_POINTS)):
        # each variable from its own sequence of points: x - y differs from point to point
        env = {
            name: number(_POINTS[(k + j) % len(_POINTS)]) + number(str(37 * j + 11 * k)) / 100
            for j, name in enumerate(names)
        }
        values = [_values_at(t, env, num) for t in token_lists]
        if any(v is None for v in values):
            continue
        for row, v in zip(out, values):
            row.append(v)
        if len(out[0]) == 3:
            return out
    return None


def compare_numbers(a: Any, b: Any, num: Numbers = FLOAT) -> Outcome | None:
    """'equal' within *num*'s tolerance, 'wrong' beyond 1e-6 relative, else None (too close)."""
    scale = max(abs(a), abs(b), 1e-12)
    diff = abs(a - b) / scale if scale >= 1 else abs(a - b)
    if diff <= num.rel_equal:
        return "equal"
    if diff > _REL_DIFFER:
        return "wrong"
    return None  # too close to call without sympy
