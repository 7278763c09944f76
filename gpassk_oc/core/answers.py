"""Final-answer extraction, canonical forms and rule-based equivalence (pure core).

Extraction (:func:`extract_final_answer`)
    1. The content of the *last* ``\\boxed{...}`` / ``\\fbox{...}`` (nested braces,
       ``\\boxed 5`` without braces, ``\\boxed{{5}}`` double braces).
    2. If the line holding that last box holds several boxes, they are one answer to a
       multi-part question and are joined as a comma list: ``\\boxed{1}, \\boxed{2}`` →
       ``"1, 2"`` (math-verify reads a comma list as a set/tuple). Boxes on earlier lines are
       intermediate results and are ignored.
    3. Without any box: the last explicit statement "final answer is X" / "the answer is X" /
       "Final Answer: X" / "答案是 X" / "最终答案为 X" (rest of that line, ``$`` and a trailing
       period stripped).
    4. Otherwise ``None`` — we never guess the last number: a guessed answer is scored
       silently, a ``None`` is visible and counted (and scored wrong without a judge call).
    An empty box yields ``None``.

Canonical form (:func:`canonical_answer`)
    A cheap, *certainly answer-preserving* normal form used to deduplicate answers before any
    expensive check: whitespace, ``$``, ``\\left``/``\\right``, spacing macros,
    ``\\displaystyle``, ``\\dfrac``/``\\tfrac`` → ``\\frac``, ``\\frac12`` → ``\\frac{1}{2}``,
    ``x^{2}`` → ``x^2``, ``\\text{271}`` → ``271`` (numbers only), empty ``\\text{}``, a
    trailing period. Equal canonical forms are the same answer; different canonical forms may
    still be equivalent (that is what the rule check and the judge decide).

Rule check (:func:`check_answer`, :func:`answers_equivalent`)
    Outcome ``'equal'``, ``'wrong'`` (*confidently wrong*) or ``'undecided'`` (not shown
    equal and not confidently wrong: the judge decides in cascade mode; rules mode scores it
    False). A missing answer (``None``/empty) is ``'wrong'``. Then, cheapest first
    (:func:`fast_check`, no sympy, ~µs):

    * equal canonical forms → equal;
    * "x=5" against "5": the assigned value is compared;
    * both exact rationals (``3``, ``-0.5``, ``a/b``, ``\\frac{a}{b}``) → compared as
      :class:`fractions.Fraction`: equal / wrong;
    * both closed arithmetic values (``2\\sqrt{3}``, ``\\frac{\\pi}{4}``, ``\\ln 2+\\ln 3``,
      ``e^2``, ``3+4i``) → evaluated in doubles: wrong beyond 1e-6 relative; equal within 1e-9
      only if 50-digit arithmetic agrees within 1e-30; otherwise math-verify. Ambiguous notation (``2^10``, ``\\ln 2x``, ``\\log 8``) is
      refused;
    * both finite sets ``\\{…\\}``, two-endpoint intervals (also written as inequalities
      ``-1<x\\le 2``, ``x>3``) or numeric p/b-matrices of such values → compared elementwise:
      equal / wrong; a number against a set/interval → wrong;
    * both multiple-choice letter sets (``A``, ``BD``, ``A,C``; A–G) → equal / wrong;
    * expressions or equations in single-letter variables → evaluated at three fixed
      irrational points (equations up to a constant factor): identical → equal, different →
      undecided (never wrong: the problem may give the variable a meaning);
    * text (``\\text{…}``, CJK, bare words) → equal if the lower-cased texts agree, else
      undecided; text or a choice letter against a number → undecided; prose outside
      ``\\text{}`` → undecided (math-verify would multiply its letters: "obj0a" == 0);
    * anything else → math-verify ``parse``/``verify`` in a worker *process* with a per-call
      deadline (:class:`MathVerifyPool`; math-verify's own SIGALRM timeouts only work in the
      main thread, a stuck worker is SIGKILLed and replaced; a timeout is undecided).
      ``verify`` true → equal. False is *confidently wrong* only when both answers are
      :func:`is_plain_math` (no letters besides whitelisted commands, so math-verify cannot
      have read a fragment of a sentence) and both parse to closed numeric values, or
      intervals / finite sets / unions / tuples of them; otherwise undecided.
"""
from __future__ import annotations

import atexit
import json
import cmath
import math
import os
import queue
import re
import select
import subprocess
import sys
import threading
import time
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, NamedTuple, Optional, Sequence

from mpmath.ctx_mp import MPContext

Outcome = Literal["equal", "wrong", "undecided"]

# ----------------------------------------------------------------------------- extraction

_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])\s*")
_FALLBACK_RES = (
    re.compile(r"(?:final answer|the answer)\s*(?:is|:)\s*:?\s*(.+?)\s*$", re.I | re.M),
    re.compile(r"(?:最终答案|答案)\s*(?:是|为)?\s*(?:是|为|:|：)\s*(.+?)\s*$", re.M),
)


def _braced(text: str, start: int) -> Optional[tuple[str, int]]:
    """Content of the brace group opening at ``text[start] == '{'`` and the index after it."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":  # skip escaped characters such as \{ and \}
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
        i += 1
    return None


def _unwrap_double(content: str) -> str:
    """``{{5}}`` (a template artefact) → ``5``; ``{1}{2}`` is left alone."""
    while content.startswith("{") and content.endswith("}"):
        inner = _braced(content, 0)
        if inner is None or inner[1] != len(content):
            break
        content = inner[0].strip()
    return content


def _boxes_with_pos(text: str) -> list[tuple[str, int]]:
    found = []
    for match in _BOX_RE.finditer(text):
        pos = match.end()
        if pos < len(text) and text[pos] == "{":
            group = _braced(text, pos)
            if group is not None:
                found.append((_unwrap_double(group[0].strip()), match.start()))
        elif pos > match.start() + 6 or (pos < len(text) and text[pos] not in "\\$"):
            token = re.match(r"[^\s$]+", text[pos:])
            if token:
                found.append((token.group(0).strip(), match.start()))
    return found


def boxed_answers(text: str) -> list[str]:
    """Every ``\\boxed``/``\\fbox`` content in order (``\\boxed 5`` form included)."""
    return [content for content, _ in _boxes_with_pos(text or "")]


@lru_cache(maxsize=65536)
def _answer_from_last_line(tail: str) -> Optional[str]:
    """'' for only empty boxes, None for no complete box, else the (joined) answer."""
    boxes = _boxes_with_pos(tail)
    if not boxes:
        return None
    return ", ".join(b for b, _ in boxes if b)


def extract_final_answer(text: Optional[str]) -> Optional[str]:
    """The final answer of a model response, or None when it states none (see module doc)."""
    if not text:
        return None
    last = text.rfind("\\boxed")
    last = max(last, text.rfind("\\fbox", last + 1))  # only the part after the last \\boxed
    if last >= 0:
        # only the line holding the last box matters: scan from its start (fast on long texts);
        # final lines repeat a lot across samples, so their parse is memoised
        line_start = text.rfind("\n", 0, last) + 1
        found = _answer_from_last_line(text[line_start:])
        if found is not None:
            return found or None
        boxes = _boxes_with_pos(text)  # e.g. an unclosed last box: the last complete one
        if boxes:
            return boxes[-1][0] or None
    for pattern in _FALLBACK_RES:
        matches = pattern.findall(text)
        if matches:
            answer = matches[-1].strip().strip("$").strip()
            answer = re.sub(r"[.。]$", "", answer).strip().strip("$").strip()
            return answer or None
    return None


# ----------------------------------------------------------------------------- canonical form

_CANON_SUBS = (
    (re.compile(r"\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\displaystyle|\\[!,;: ]|~"), ""),
    (re.compile(r"\\[dt]frac(?![a-zA-Z])"), r"\\frac"),
    (re.compile(r"\\frac\s*(\d)\s*(\d)"), r"\\frac{\1}{\2}"),
    (re.compile(r"([\^_])\{\s*([0-9a-zA-Z])\s*\}(?![0-9])"), r"\1\2"),  # x^{2} → x^2, not _{2}8
    (re.compile(r"\\text\{\s*\}"), ""),
    (re.compile(r"\s+"), ""),
)


# a whole answer \text{271} is the number 271; \text{word} keeps its wrapper (math-verify
# reads a bare word as a product of symbols: "obj0a" == "object0" == 0)
_WHOLE_TEXT_RE = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mbox)\{([-+]?\d+(?:\.\d+)?)\}$")


def canonical_answer(answer: Optional[str]) -> str:
    """Cheap normal form for deduplication; equal forms are certainly the same answer."""
    if answer is None:
        return ""
    text = answer.strip()
    for pattern, repl in _CANON_SUBS:
        text = pattern.sub(repl, text)
    previous = None
    while text != previous:  # "$5$." → "5", "\\text{271}" → "271"
        previous = text
        text = text.strip("$").rstrip(".。")
        whole = _WHOLE_TEXT_RE.match(text)
        if whole:
            text = whole.group(1)
    return text


# ----------------------------------------------------------------------------- fast exact rules

_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_RATIONAL_RES = (
    re.compile(rf"^({_NUM})$"),
    re.compile(rf"^([+-]?)\\frac\{{({_NUM})\}}\{{({_NUM})\}}$"),
    re.compile(rf"^({_NUM})/({_NUM})$"),
)
_CHOICE_RE = re.compile(r"^(?:\\text\{)?([A-G](?:[,，、]?[A-G])*)\}?$")


def as_rational(canonical: str) -> Optional[Fraction]:
    """The exact value of a canonical answer that is a plain rational number, else None."""
    if len(canonical) > 40:
        return None
    try:
        m = _RATIONAL_RES[0].match(canonical)
        if m:
            return Fraction(m.group(1))
        m = _RATIONAL_RES[1].match(canonical)
        if m:
            value = Fraction(m.group(2)) / Fraction(m.group(3))
            return -value if m.group(1) == "-" else value
        m = _RATIONAL_RES[2].match(canonical)
        if m:
            return Fraction(m.group(1)) / Fraction(m.group(2))
    except (ValueError, ZeroDivisionError):
        return None
    return None


def as_choice(canonical: str) -> Optional[frozenset[str]]:
    """The set of option letters of a multiple-choice answer (``A``, ``BD``, ``A,C``), else None."""
    m = _CHOICE_RE.match(canonical)
    if not m:
        return None
    return frozenset(ch for ch in m.group(1) if "A" <= ch <= "G")


# --- closed numeric expressions without sympy: \frac, \sqrt, \pi, ^, implicit products.
# math-verify costs ~2 ms per new pair; this evaluator ~20 µs, so most numeric answers never
# reach the worker pool. Only the tokens below are accepted; anything else returns None.
# Two number systems: doubles decide quickly (most distinct answers are plainly different),
# and every "equal" found in doubles is re-decided in a private 50-digit mpmath context,
# because in doubles 2^{40}+1 and 2^{40} are "equal within 1e-9".


class _Numbers(NamedTuple):
    number: Callable[[str], Any]
    pi: Any
    e: Any
    i: Any
    funcs: dict
    isfinite: Callable[[Any], bool]
    complex_type: type
    rel_equal: float  # numerically equal: relative difference below this


_MP = MPContext()
_MP.dps = 50
_FLOAT = _Numbers(float, math.pi, math.e, 1j,
                  {"\\ln": math.log, "\\log": math.log, "\\sin": math.sin, "\\cos": math.cos,
                   "\\tan": math.tan, "\\exp": math.exp, "\\arcsin": math.asin,
                   "\\arccos": math.acos, "\\arctan": math.atan},
                  cmath.isfinite, complex, 1e-9)
_PRECISE = _Numbers(_MP.mpf, +_MP.pi, +_MP.e, _MP.mpc(0, 1),
                    {"\\ln": _MP.log, "\\log": _MP.log, "\\sin": _MP.sin, "\\cos": _MP.cos,
                     "\\tan": _MP.tan, "\\exp": _MP.exp, "\\arcsin": _MP.asin,
                     "\\arccos": _MP.acos, "\\arctan": _MP.atan},
                    _MP.isfinite, _MP.mpc, 1e-30)
_FUNCS = _FLOAT.funcs  # the accepted function names
_numbers = threading.local()  # which system this thread's fast_check is using


def _num() -> _Numbers:
    return getattr(_numbers, "system", _FLOAT)
_TOKEN_RE = re.compile(r"\d+(?:\.\d*)?|\.\d+|\\frac|\\sqrt|\\pi|\\cdot|\\times|\\infty|"
                       r"\\(?:ln|log|sin|cos|tan|exp|arcsin|arccos|arctan)(?![a-zA-Z])|"
                       r"[-+*/^_(){}\[\]]|[a-z]")
# single-letter variables (not e, i: constants); a run of letters (sin, ab) is not accepted
_LETTER_RUN_RE = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{2,}|[A-Z]")
_POINTS = ("0.6180339887", "1.4142135623", "-0.7320508075")
_REL_DIFFER = 1e-6  # confidently different: relative difference above this (math-verify rounds to 6 digits)


def _tokens(text: str) -> Optional[list[str]]:
    tokens = _TOKEN_RE.findall(text)
    if "".join(tokens) != text:
        return None
    return tokens


class _Eval:
    """Recursive-descent evaluator over the tokens of one canonical answer."""

    def __init__(self, tokens: list[str], env: Optional[dict[str, float]] = None) -> None:
        self.t = tokens
        self.i = 0
        self.env = env or {}
        self.allow_complex = False  # set once the answer itself writes i
        self.num = _num()

    def peek(self) -> Optional[str]:
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
            elif tok in ("(", "{", "\\frac", "\\sqrt", "\\pi") or tok in _FUNCS \
                    or (tok is not None and tok.isalpha()) \
                    or (tok is not None and (tok[0].isdigit() or tok[0] == ".")
                        and self.t[self.i - 1] in (")", "}")):  # \sqrt{3}7, (2)3
                value = value * self.power()  # implicit product: 2\sqrt{3}, 3\pi
            else:
                return value

    def unary(self) -> float:
        if self.peek() in ("+", "-"):
            return -self.unary() if self.take() == "-" else self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            exponent = self.group_or_atom()
            if abs(exponent) > 64 or abs(base) > 1e12:
                raise ValueError("exponent too large")
            ctype = self.num.complex_type
            if isinstance(exponent, ctype) or (isinstance(base, ctype) and exponent != int(exponent)):
                raise ValueError("complex power: leave it to sympy")
            base = base ** exponent
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
                self.t[self.i:self.i + 1] = [tok[0], tok[1:]]
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
        if not bracketed and nxt is not None and (
                nxt in ("(", "{", "\\frac", "\\sqrt", "\\pi", "e") or nxt in _FUNCS
                or nxt.isalpha() or nxt[0].isdigit() or nxt == "^"):
            raise ValueError("ambiguous function argument")
        if isinstance(arg, self.num.complex_type):
            raise ValueError("function of a complex argument: leave it to sympy")
        value = self.num.funcs[name](arg)
        if isinstance(value, self.num.complex_type):  # mpmath continues ln(-1) into C; we don't
            raise ValueError("not real")
        if base is not None:
            value = value / self.num.funcs["\\ln"](base)
        if power is not None:
            value = value ** power
        return value

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
        if tok.isalpha():
            return self.env[tok]  # KeyError: no value given (numeric_value) -> None
        if tok in ("(", "{"):
            value = self.expr()
            if self.take() != (")" if tok == "(" else "}"):
                raise ValueError("unbalanced")
            return value
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


def numeric_value(canonical: str):
    """Value (an mpmath number) of a closed arithmetic LaTeX answer (``2\\sqrt{3}``, ``\\frac{\\pi}{4}``), else None."""
    if not canonical or len(canonical) > 80:
        return None
    tokens = _tokens(canonical)
    if not tokens or "\\infty" in tokens or "[" in tokens and "\\sqrt" not in tokens:
        return None
    ev = _Eval(tokens)
    try:
        value = ev.expr()
        if ev.i != len(ev.t):
            return None
    except (ValueError, IndexError, ZeroDivisionError, OverflowError, TypeError, KeyError):
        return None
    return value if _num().isfinite(value) else None


def _variables(canonical: str) -> Optional[list[str]]:
    """Single-letter variables of an arithmetic expression, or None if it is not one."""
    if not canonical or len(canonical) > 80 or "=" in canonical:
        return None
    stripped = re.sub(r"\\(?:frac|sqrt|pi|cdot|times|infty|ln|log|sin|cos|tan|exp|arcsin|"
                      r"arccos|arctan)(?![a-zA-Z])", " ", canonical)
    if _LETTER_RUN_RE.search(stripped) or "\\" in stripped:
        return None
    # e is Euler's number and i the imaginary unit, never variables
    return sorted({ch for ch in stripped if ch.isalpha() and ch not in "ei"})


def _values_at_points(canonical: str, names: list[str]) -> Optional[list[float]]:
    tokens = _tokens(canonical)
    if not tokens or "\\infty" in tokens:
        return None
    values = []
    for k, base in enumerate(_POINTS):
        number = _num().number
        env = {name: number(base) + number(str(37 * j + 11 * k)) / 100
               for j, name in enumerate(names)}
        ev = _Eval(list(tokens), env)
        try:
            value = ev.expr()
            if ev.i != len(ev.t) or not ev.num.isfinite(value):
                return None
        except (ValueError, IndexError, ZeroDivisionError, OverflowError, TypeError, KeyError):
            return None
        values.append(value)
    return values


def _equation_check(pred_canon: str, gold_canon: str) -> Optional[Outcome]:
    """Equations l1=r1, l2=r2 are the same when l1-r1 = c·(l2-r2) for one constant c ≠ 0,
    tested at generic points (``y=3x+2`` ≡ ``3x-y+2=0``); otherwise 'undecided'."""
    sides = [pred_canon.split("="), gold_canon.split("=")]
    if any(not side.strip() for pair in sides for side in pair):
        return None
    variables = [_variables(side) for pair in sides for side in pair]
    if any(v is None for v in variables):
        return None
    names = sorted(set().union(*variables))
    if not names:
        return None
    values = [_values_at_points(side, names) for pair in sides for side in pair]
    if any(v is None for v in values):
        return None
    f1 = [l - r for l, r in zip(values[0], values[1])]
    f2 = [l - r for l, r in zip(values[2], values[3])]
    if any(abs(y) < 1e-9 for y in f2) or any(abs(x) < 1e-9 for x in f1):
        return None  # a point on the curve: ratio undefined, let math-verify decide
    ratios = [x / y for x, y in zip(f1, f2)]
    outcomes = [_compare_numbers(ratios[0], r) for r in ratios[1:]]
    if all(o == "equal" for o in outcomes):
        return "equal"
    if "wrong" in outcomes:
        return "undecided"
    return None


def symbolic_check(pred_canon: str, gold_canon: str) -> Optional[Outcome]:
    """Identity test of single-variable-letter expressions at three fixed irrational points.

    Equations (one ``=`` each) are compared up to a constant factor by :func:`_equation_check`.
    Equal at every point (within 1e-30 relative, 50-digit arithmetic) → 'equal' (a polynomial/rational identity that
    holds at generic points, Schwartz–Zippel); different at some point → 'undecided': not
    equal, yet not *confidently wrong* because variables are involved (e.g. the problem may
    define x), so cascade asks the judge and rules mode scores it False. None otherwise.
    """
    if pred_canon.count("=") == 1 and gold_canon.count("=") == 1:
        return _equation_check(pred_canon, gold_canon)
    pv, gv = _variables(pred_canon), _variables(gold_canon)
    if pv is None or gv is None or not (pv or gv):
        return None
    names = sorted(set(pv) | set(gv))
    a, b = _values_at_points(pred_canon, names), _values_at_points(gold_canon, names)
    if a is None or b is None:
        return None
    outcomes = [_compare_numbers(x, y) for x, y in zip(a, b)]
    if all(o == "equal" for o in outcomes):
        return "equal"
    if "wrong" in outcomes:
        return "undecided"
    return None


_TEXT_WRAP_RE = re.compile(r"^\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}$")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_WORDS_RE = re.compile(r"^[A-Za-z]{2,}(?:[ '-][A-Za-z]+)*$")


def as_text(canonical: str) -> Optional[str]:
    """Lower-cased text of a text answer, else None: a ``\\text{...}`` wrapper, an answer with
    CJK characters and no LaTeX, or a bare word of two or more letters (``Tuesday``)."""
    m = _TEXT_WRAP_RE.match(canonical)
    if m:
        return m.group(1).lower()
    if _CJK_RE.search(canonical) and "\\" not in canonical and "$" not in canonical:
        return canonical.lower()
    if _WORDS_RE.match(canonical):
        return canonical.lower()
    return None


def _is_number(canonical: str) -> bool:
    return as_rational(canonical) is not None or numeric_value(canonical) is not None


def text_check(pred_canon: str, gold_canon: str) -> Optional[Outcome]:
    """Text answers: both text → 'equal' if the lower-cased texts agree, else 'undecided'
    (wording is the judge's job); text vs a number → 'undecided' (三 vs 3); a choice letter
    vs a number → 'undecided' (only the options in the question can tell); else None.
    'undecided' here is final: math-verify would not decide these either."""
    pt, gt = as_text(pred_canon), as_text(gold_canon)
    if pt is not None and gt is not None:
        return "equal" if pt == gt else "undecided"
    if (pt is not None and _is_number(gold_canon)) or (gt is not None and _is_number(pred_canon)):
        return "undecided"
    pc, gc = as_choice(pred_canon), as_choice(gold_canon)
    if (pc is not None and _is_number(gold_canon)) or (gc is not None and _is_number(pred_canon)):
        return "undecided"
    return None


def _compare_numbers(a: float, b: float) -> Optional[Outcome]:
    scale = max(abs(a), abs(b), 1e-12)
    diff = abs(a - b) / scale if scale >= 1 else abs(a - b)
    if diff <= _num().rel_equal:
        return "equal"
    if diff > _REL_DIFFER:
        return "wrong"
    return None  # too close to call without sympy


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _endpoint(text: str) -> Optional[float]:
    if text in ("\\infty", "+\\infty"):
        return math.inf
    if text == "-\\infty":
        return -math.inf
    value = numeric_value(text)
    return None if isinstance(value, complex) else value


_REL = r"(<|>|\\le|\\leq|\\ge|\\geq|\\leqslant|\\geqslant)"
_CHAIN_RE = re.compile(rf"^([^<>=a-zA-Z]+){_REL}([a-z]){_REL}([^<>=a-zA-Z]+)$")
_SIMPLE_RE = re.compile(rf"^([a-z]){_REL}([^<>=a-zA-Z]+)$")


def _inequality_interval(canonical: str) -> Optional[tuple]:
    """``-1<x\\le2`` → ('interval', '(]', -1, 2); ``x>3`` → ('interval', '()', 3, inf)."""
    if "<" not in canonical and ">" not in canonical and "\\" not in canonical:
        return None
    m = _CHAIN_RE.match(canonical)
    if m:
        lo, op1, _, op2, hi = m.groups()
        if not (op1.startswith(("<", "\\le")) and op2.startswith(("<", "\\le"))):
            return None  # a > x > b chains are rare; leave them to math-verify
        lo_v, hi_v = numeric_value(lo), numeric_value(hi)
        if lo_v is None or hi_v is None or isinstance(lo_v, complex) or isinstance(hi_v, complex):
            return None
        return ("interval", ("(" if op1 == "<" else "[") + (")" if op2 == "<" else "]"), lo_v, hi_v)
    m = _SIMPLE_RE.match(canonical)
    if m:
        _, op, bound = m.groups()
        value = numeric_value(bound)
        if value is None or isinstance(value, complex):
            return None
        if op == ">" or op.startswith("\\ge"):
            return ("interval", ("(" if op == ">" else "[") + ")", value, math.inf)
        return ("interval", "(" + (")" if op == "<" else "]"), -math.inf, value)
    return None


_MATRIX_RE = re.compile(r"^\\begin\{([pbB]?matrix)\}(.*)\\end\{\1\}$")


def _structure(canonical: str) -> Optional[tuple]:
    """('set', sorted values) for ``\\{a,b\\}``, ('interval', brackets, a, b) for ``(a,b]``,
    ('matrix', rows, values) for a numeric p/b/B/plain matrix (bracket style is typography;
    vmatrix is a determinant and is not read), else None."""
    interval = _inequality_interval(canonical)
    if interval is not None:
        return interval
    m = _MATRIX_RE.match(canonical)
    if m:
        rows = [r.split("&") for r in m.group(2).split("\\\\")]
        if rows and rows[-1] == [""]:
            rows = rows[:-1]  # a trailing \\\\ before \\end
        if not rows or len({len(r) for r in rows}) != 1:
            return None
        values = [numeric_value(x) for r in rows for x in r]
        if any(v is None for v in values):
            return None
        return ("matrix", (len(rows), len(rows[0])), values)
    if canonical.startswith("\\{") and canonical.endswith("\\}"):
        inner = canonical[2:-2]
        values = [numeric_value(x) for x in _split_top(inner)] if inner else []
        if any(v is None or isinstance(v, complex) for v in values):
            return None
        return ("set", sorted(values))
    if len(canonical) >= 5 and canonical[0] in "([" and canonical[-1] in ")]":
        parts = _split_top(canonical[1:-1])
        if len(parts) == 2:
            lo, hi = _endpoint(parts[0]), _endpoint(parts[1])
            if lo is not None and hi is not None:
                return ("interval", canonical[0] + canonical[-1], lo, hi)
    return None


def _compare_structures(p: tuple, g: tuple) -> Optional[Outcome]:
    if p[0] != g[0]:
        return None
    if p[0] == "interval":
        if p[1] != g[1]:
            return "wrong"
        values = list(zip(p[2:], g[2:]))
    elif p[0] == "matrix":
        if p[1] != g[1]:
            return "wrong"  # different shapes
        values = list(zip(p[2], g[2]))
    else:
        if len(p[1]) != len(g[1]) or len(set(p[1])) != len(p[1]) or len(set(g[1])) != len(g[1]):
            return None  # sizes differ or repeated elements: leave it to math-verify
        values = list(zip(p[1], g[1]))
    outcomes = []
    for a, b in values:
        if math.isinf(a) or math.isinf(b):
            outcomes.append("equal" if a == b else "wrong")
        else:
            outcomes.append(_compare_numbers(a, b))
    if any(o is None for o in outcomes):
        return None
    return "equal" if all(o == "equal" for o in outcomes) else "wrong"


_ASSIGN_RE = re.compile(r"^[a-zA-Z](?:_\{?\d\}?)?=([^=<>]+)$")


def fast_check(pred_canon: str, gold_canon: str) -> Optional[Outcome]:
    """Definitive outcome from cheap rules without sympy, or None when math-verify is needed.

    In order: empty → wrong; equal canonical forms; exact rationals (Fraction); closed
    arithmetic values (doubles: different beyond 1e-6 relative → wrong; equal within 1e-9 →
    re-decided in 50-digit arithmetic, equal only within 1e-30); finite sets
    and two-endpoint intervals of such values; multiple-choice letter sets (all definitive);
    then :func:`symbolic_check` and :func:`text_check`, which may also return 'undecided'
    (final: not equal, judge needed, no math-verify call).
    """
    if not pred_canon:
        return "wrong"
    if pred_canon == gold_canon:
        return "equal"
    outcome = _fast_check(pred_canon, gold_canon)
    if outcome == "equal":
        _numbers.system = _PRECISE
        try:
            outcome = _fast_check(pred_canon, gold_canon)
        finally:
            _numbers.system = _FLOAT
    return outcome


def _fast_check(pred_canon: str, gold_canon: str) -> Optional[Outcome]:
    if not pred_canon:
        return "wrong"
    if pred_canon == gold_canon:
        return "equal"
    # "x=5" against "5": the value assigned to a single variable is the answer
    pm, gm = _ASSIGN_RE.match(pred_canon), _ASSIGN_RE.match(gold_canon)
    if (pm is None) != (gm is None):
        if pm is not None and "=" not in gold_canon:
            return _fast_check(pm.group(1), gold_canon)
        if gm is not None and "=" not in pred_canon:
            return _fast_check(pred_canon, gm.group(1))
    p, g = as_rational(pred_canon), as_rational(gold_canon)
    if p is not None and g is not None:
        return "equal" if p == g else "wrong"
    pv, gv = numeric_value(pred_canon), numeric_value(gold_canon)
    if pv is not None and gv is not None:
        return _compare_numbers(pv, gv)
    ps = _structure(pred_canon) if pv is None else None
    gs = _structure(gold_canon) if gv is None else None
    if ps is not None and gs is not None:
        return _compare_structures(ps, gs)
    if (ps is not None and gv is not None) or (gs is not None and pv is not None):
        return "wrong"  # a number is never a set or an interval
    pc, gc = as_choice(pred_canon), as_choice(gold_canon)
    if pc is not None and gc is not None:
        return "equal" if pc == gc else "wrong"
    if pv is None or gv is None:
        found = symbolic_check(pred_canon, gold_canon)
        if found is not None:
            return found
    found = text_check(pred_canon, gold_canon)
    if found is None and (_has_bare_word(pred_canon) or _has_bare_word(gold_canon)):
        return "undecided"  # prose outside \text{}: math-verify would multiply its letters
    return found


# \text{...} groups and command arguments such as \begin{pmatrix} are not prose
_TEXT_GROUP_RE = re.compile(r"\\(?:text|textbf|textrm|mathrm|mbox|operatorname)\{[^{}]*\}|"
                            r"\\[a-zA-Z]+\{[a-zA-Z*]*\}")
_BARE_WORD_RE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")


def _has_bare_word(canonical: str) -> bool:
    return bool(_BARE_WORD_RE.search(_TEXT_GROUP_RE.sub(" ", canonical)))


# "plain math": no letters outside these commands, so math-verify sees the whole string
_PLAIN_COMMANDS = re.compile(
    r"\\(?:(?:frac|binom|sqrt|pi|infty|cup|cap|cdot|times|div|pm|le|ge|leq|geq|lt|gt|circ|"
    r"left|right|in|emptyset|varnothing)(?![a-zA-Z])|mathbb\{R\}|\{|\}|%)"
)
_PLAIN_RE = re.compile(r"^[0-9+\-*/^_().,\[\]{}<>=|%°π√∞∪! ]*$")


def is_plain_math(canonical: str) -> bool:
    """True when *canonical* has no letters besides whitelisted math commands (see module doc)."""
    stripped = _PLAIN_COMMANDS.sub(" ", canonical).replace("\\", "")
    return bool(stripped.strip()) and bool(_PLAIN_RE.match(stripped))


# ----------------------------------------------------------------------------- worker pool

_WORKER_ENV_FLAG = "GPASSK_MV_WORKER"


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[2])


class MathVerifyPool:
    """A few worker processes running math-verify with a per-call deadline.

    Each worker is ``python -m gpassk_oc.core._mv_worker`` speaking JSON lines over pipes, so
    it works from any thread, from daemonic worker processes (no ``multiprocessing``) and needs
    no ``__main__`` guard. A call that exceeds ``timeout`` kills its worker (SIGKILL) and yields
    ``'undecided'``; a fresh worker is started lazily for the next call.
    """

    def __init__(self, workers: int = 2, timeout: float = 5.0) -> None:
        self.size = max(1, int(workers))
        self.timeout = float(timeout)
        self._idle: "queue.LifoQueue[Optional[subprocess.Popen]]" = queue.LifoQueue()
        for _ in range(self.size):
            self._idle.put(None)  # slot without a started process
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self.timeouts = 0
        self._closed = False
        self._spawner: Optional[threading.Thread] = None
        self._spawn_q: "queue.Queue" = queue.Queue()

    # -- process management
    def _start(self) -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (_package_root(), env.get("PYTHONPATH", "")) if p)
        env[_WORKER_ENV_FLAG] = "1"
        env["GPASSK_MV_PARENT"] = str(os.getpid())
        proc = self._spawn(dict(
            args=[sys.executable, "-u", "-m", "gpassk_oc.core._mv_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, bufsize=0))
        proc._gp_buf = b""  # type: ignore[attr-defined]
        with self._lock:
            self._procs.add(proc)
        return proc

    def _spawn(self, kwargs: dict) -> subprocess.Popen:
        """Start a process from one long-lived thread: the worker's PR_SET_PDEATHSIG follows
        the *thread* that forked it, and executor threads come and go."""
        with self._lock:
            if self._spawner is None:
                self._spawner = threading.Thread(target=self._spawn_loop, daemon=True,
                                                 name="mv-spawner")
                self._spawner.start()
        box: list = []
        done = threading.Event()
        self._spawn_q.put((kwargs, box, done))
        done.wait()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    def _spawn_loop(self) -> None:
        while True:
            kwargs, box, done = self._spawn_q.get()
            try:
                box.append(subprocess.Popen(**kwargs))
            except BaseException as exc:  # reported to the caller
                box.append(exc)
            done.set()

    def _kill(self, proc: subprocess.Popen) -> None:
        try:
            proc.kill()
            proc.wait(timeout=5)
        except Exception:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except Exception:
                pass
        with self._lock:
            self._procs.discard(proc)

    def _readline(self, proc: subprocess.Popen, deadline: float) -> Optional[bytes]:
        fd = proc.stdout.fileno()  # type: ignore[union-attr]
        buf: bytes = proc._gp_buf  # type: ignore[attr-defined]
        while b"\n" not in buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:  # worker died
                raise EOFError
            buf += chunk
        line, _, rest = buf.partition(b"\n")
        proc._gp_buf = rest  # type: ignore[attr-defined]
        return line

    # -- public
    def check(self, pred: str, gold: str, timeout: Optional[float] = None) -> Outcome:
        """math-verify outcome for one pair; 'undecided' on timeout or worker failure."""
        if self._closed:
            raise RuntimeError("MathVerifyPool is closed")
        limit = self.timeout if timeout is None else timeout
        proc = self._idle.get()
        try:
            for attempt in range(2):  # a worker that died between calls is replaced once
                if proc is None or proc.poll() is not None:
                    if proc is not None:
                        self._kill(proc)
                    proc = self._start()
                    # startup (imports) does not count against the per-call deadline
                    start_deadline = time.monotonic() + 120
                    try:
                        proc.stdin.write(b'["ping"]\n')  # type: ignore[union-attr]
                        started = self._readline(proc, start_deadline) is not None
                    except (BrokenPipeError, EOFError, OSError):
                        started = False
                    if not started:
                        self._kill(proc)
                        proc = None
                        raise RuntimeError(f"math-verify worker failed to start: {_start_error()}")
                try:
                    proc.stdin.write(json.dumps([pred, gold]).encode() + b"\n")  # type: ignore[union-attr]
                    line = self._readline(proc, time.monotonic() + limit)
                except (BrokenPipeError, EOFError, OSError):
                    self._kill(proc)
                    proc = None
                    continue
                if line is None:  # deadline passed: the worker is stuck in sympy
                    self.timeouts += 1
                    self._kill(proc)
                    proc = None
                    return "undecided"
                try:
                    outcome = json.loads(line)
                except ValueError:
                    outcome = "undecided"
                return outcome if outcome in ("equal", "wrong") else "undecided"
            return "undecided"
        finally:
            self._idle.put(proc)

    def check_many(self, pairs: Sequence[tuple[str, str]]) -> list[Outcome]:
        """Outcomes for many (pred, gold) pairs, spread over the workers."""
        if not pairs:
            return []
        if self.size == 1 or len(pairs) == 1:
            return [self.check(p, g) for p, g in pairs]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(self.size) as ex:
            return list(ex.map(lambda pg: self.check(pg[0], pg[1]), pairs))

    def close(self) -> None:
        """Kill every worker."""
        self._closed = True
        with self._lock:
            procs = list(self._procs)
        for proc in procs:
            self._kill(proc)

    def __enter__(self) -> "MathVerifyPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _start_error() -> str:
    """Why ``python -m gpassk_oc.core._mv_worker`` cannot start (its import error), briefly."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH", "")) if p)
    probe = subprocess.run([sys.executable, "-c", "import math_verify, gpassk_oc.core._mv_worker"],
                           capture_output=True, text=True, env=env, timeout=120)
    tail = (probe.stderr or "").strip().splitlines()[-1:] or ["no error on import; timed out"]
    return f"{sys.executable}: {tail[0]}"


_DEFAULT_POOL: Optional[MathVerifyPool] = None
_DEFAULT_POOL_LOCK = threading.Lock()


def default_pool() -> MathVerifyPool:
    """The process-wide pool used by :func:`answers_equivalent` (closed at exit)."""
    global _DEFAULT_POOL
    with _DEFAULT_POOL_LOCK:
        if _DEFAULT_POOL is None:
            workers = int(os.environ.get("GPASSK_MV_WORKERS", min(2, os.cpu_count() or 1)))
            _DEFAULT_POOL = MathVerifyPool(workers=workers,
                                           timeout=float(os.environ.get("GPASSK_MV_TIMEOUT", 5)))
            atexit.register(_DEFAULT_POOL.close)
        return _DEFAULT_POOL


def check_answer(prediction: Optional[str], gold: str,
                 pool: Optional[MathVerifyPool] = None) -> Outcome:
    """'equal', 'wrong' (confidently wrong) or 'undecided' for one extracted answer."""
    if prediction is None or not prediction.strip():
        return "wrong"
    pc, gc = canonical_answer(prediction), canonical_answer(gold)
    quick = fast_check(pc, gc)
    if quick is not None:
        return quick
    return (pool or default_pool()).check(pc, gc)


def check_answers(pairs: Iterable[tuple[Optional[str], str]],
                  pool: Optional[MathVerifyPool] = None) -> list[Outcome]:
    """:func:`check_answer` over many pairs; each distinct canonical pair is checked once."""
    pairs = list(pairs)
    keys = [(canonical_answer(p) if p and p.strip() else "", canonical_answer(g)) for p, g in pairs]
    outcomes: dict[tuple[str, str], Outcome] = {}
    slow: list[tuple[str, str]] = []
    for key in keys:
        if key in outcomes:
            continue
        quick = fast_check(*key)
        if quick is None:
            outcomes[key] = "undecided"
            slow.append(key)
        else:
            outcomes[key] = quick
    if slow:
        for key, outcome in zip(slow, (pool or default_pool()).check_many(slow)):
            outcomes[key] = outcome
    return [outcomes[key] for key in keys]


def answers_equivalent(prediction: Optional[str], gold: str) -> bool:
    """True when *prediction* is equal to *gold* by the rules (exact forms or math-verify).

    Safe to call from any thread or process; a pathological expression times out (default
    5 s, env ``GPASSK_MV_TIMEOUT``) and counts as not equivalent.
    """
    return check_answer(prediction, gold) == "equal"
