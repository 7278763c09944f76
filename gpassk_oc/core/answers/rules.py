"""Rule-based equivalence of an extracted answer and the gold answer (pure core).

Outcome ``'equal'``, ``'wrong'`` (*confidently wrong*: a competent judge would also say no)
or ``'undecided'`` (not shown equal and not confidently wrong: the judge decides in cascade
mode; rules mode scores it False). A missing answer (``None``/empty) is ``'wrong'``. Then,
cheapest first (:func:`fast_check`, no sympy, ~µs):

* equal canonical forms → equal;
* "x=5" against "5": the assigned value is compared;
* both exact rationals (``3``, ``-0.5``, ``a/b``, ``\\frac{a}{b}``) → compared as
  :class:`fractions.Fraction`: equal / wrong;
* both closed arithmetic values (:mod:`.numeric`) → evaluated in doubles: wrong beyond 1e-6
  relative; equal within 1e-9 only if 50-digit arithmetic agrees within 1e-30;
* both finite sets, two-endpoint intervals (also as inequalities) or numeric matrices
  (:mod:`.structures`) → elementwise: equal / wrong; a number against an interval → wrong,
  against a one-element set → its element decides, against an element of a larger set →
  undecided (one of several answers), against no element → wrong;
* both multiple-choice letter sets (``A``, ``BD``, ``A,C``; A–G) → equal / wrong;
* other ways of writing a value (:mod:`.forms`): percent, degrees, units, mixed numbers,
  ``\\pm``, unordered lists, decimal approximations — equal when unambiguous, otherwise
  undecided, never confidently wrong because of the notation; a rounded answer for an
  exact gold, a tuple against a reordered list, and two values a factor 100 or 180/π apart
  (a percent or degree sign left out) are undecided;
* a decimal against a fraction (``0.25`` for ``\\frac{1}{4}``, ``10.5\\pi`` for
  ``\\frac{21}{2}\\pi``) is never equal, only undecided: the question may prescribe either
  notation (:mod:`.notation`, applied to every rule's and math-verify's 'equal');
* qualifiers (``\\text{for all } x``, ``\\text{where …}``, ``\\text{only}``) and
  ``\\text{and}`` lists are rewritten away, tuple assignments ``(f,g)=(n,1)`` read as
  ``f=n,g=1``: equal when the rewritten pair is, else undecided;
* a value close to a decimal reference (0.5 %) or to a value with π (0.1 %) is undecided,
  not wrong (a measurement; π taken as 3.14);
* expressions or equations in variables (:mod:`.symbolic`; one letter, optionally
  subscripted; Greek letters count) → evaluated at three fixed irrational points where both
  are defined (equations up to a constant factor; an expression against an equation lacking
  one of its variables v as v = expression; angle families with the integer parameter
  renamed; intervals with variables endpoint by endpoint): identical → equal, different →
  undecided (never wrong: the problem may give the variable a meaning);
* text (``\\text{…}``, CJK, bare words) → equal if the lower-cased texts agree, else
  undecided; text or a choice letter against a number → undecided; prose outside
  ``\\text{}`` → undecided (math-verify would multiply its letters: "obj0a" == 0);
* anything else → math-verify in a worker process with a deadline (:mod:`.mv_pool`;
  a timeout is undecided). ``verify`` true → equal; false is *confidently wrong* only when
  both answers are :func:`~.canonical.is_plain_math` and parse to closed numeric values, or
  intervals / finite sets / unions / tuples of them; otherwise undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from gpassk_oc.core.answers import forms, notation
from gpassk_oc.core.answers.canonical import (
    as_choice,
    as_rational,
    as_text,
    has_bare_word,
    split_top,
)
from gpassk_oc.core.answers.numeric import (
    EXACT,
    FLOAT,
    PRECISE,
    Numbers,
    Outcome,
    compare_numbers,
    numeric_value,
    variables,
)
from gpassk_oc.core.answers.qualifiers import plain_pair
from gpassk_oc.core.answers.structures import close, compare_structures, structure
from gpassk_oc.core.answers.symbolic import (
    rename_function_variable,
    renamed_parameter,
    solved_for,
    symbolic_check,
)

__all__ = [
    "Outcome",
    "fast_check",
    "symbolic_check",
    "text_check",
    "DEFAULT_TOLERANCES",
    "Tolerances",
]


@dataclass(frozen=True)
class Tolerances:
    """How close two different values may be and still not be called confidently wrong
    (each makes the pair 'undecided': the judge's call).

    Attributes:
        rounding: a component against a structure's, when decimals are involved: a
            rounding to two significant digits is off by at most 5 % (1.41 for √2).
        decimal_reference: a value against a gold that is itself a decimal (785.12: a
            measured or rounded value), relative.
        pi_approximation: a value against one with π (π taken as 3.14 or 22/7), relative.
    """

    rounding: float = 0.05
    decimal_reference: float = 0.005
    pi_approximation: float = 0.001


DEFAULT_TOLERANCES = Tolerances()


def _is_number(canonical: str) -> bool:
    return as_rational(canonical) is not None or numeric_value(canonical) is not None


def text_check(pred_canon: str, gold_canon: str) -> Outcome | None:
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


# "x=5", "a_1=5", "\lambda=5", "f(3)=5", "E(2020,1993)=76", "|r-s|=16", "x\in[-2,7]",
# "Maximum=2", "\text{Area}=5", "Paolo:18": a named value
_ASSIGN_RE = re.compile(
    r"^(?:(?:[a-zA-Z]+|\\[a-zA-Z]+)(?:_(?:\{\w+\}|\w))?(?:\([^()=]*\))?|\|[^|=]+\||"
    r"\\text\{[^{}]*\})(?:=|\\in)([^=<>]+)$|^[A-Za-z]{2,}:([^:=<>]+)$"
)


@lru_cache(maxsize=1 << 16)  # pure: a pair met again (another run, vote classes) is free
def fast_check(
    pred_canon: str, gold_canon: str, tol: Tolerances = DEFAULT_TOLERANCES
) -> Outcome | None:
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
    outcome = _fast_check(pred_canon, gold_canon, FLOAT, tol)
    if outcome == "equal":  # doubles cannot tell 2^{40}+1 from 2^{40}: confirm in 50 digits
        outcome = _fast_check(pred_canon, gold_canon, PRECISE, tol)
    return notation.settle(pred_canon, gold_canon, outcome)


def _approx_check(
    pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances
) -> Outcome | None:
    """``\\frac{1+\\sqrt{97}}{8}\\approx1.36``: an exact value and its rounding; equal to either
    is equal, wrong only against both."""
    outcomes = [
        _fast_check(p, g, num, tol)
        for p in pred_canon.split("\\approx")
        for g in gold_canon.split("\\approx")
        if p and g
    ]
    if "equal" in outcomes:
        return "equal"
    if outcomes and all(o == "wrong" for o in outcomes):
        return "wrong"
    return "undecided" if "undecided" in outcomes else None


def _unless_approximation(
    pred_canon: str,
    gold_canon: str,
    num: Numbers,
    tol: Tolerances,
    values: tuple[Any, Any] | None = None,
) -> Outcome:
    """'wrong' for two different values, unless one is a decimal approximation of the other
    (then 'equal' or 'undecided', see :func:`.forms.approximates`), or close to a decimal
    reference or to a value with π ('undecided')."""
    found = forms.approximation(pred_canon, gold_canon, num)
    if found is not None:
        return found
    # a reference that is itself a decimal (785.12: a measured or rounded value) within 0.5 %,
    # or π taken as 3.14 or 22/7 (5040 against 15840/π) within 0.1 %: a judge may accept it
    tolerance = (
        tol.decimal_reference
        if _DECIMAL_RE.match(gold_canon)
        else tol.pi_approximation
        if "\\pi" in pred_canon + gold_canon
        else 0.0
    )
    if tolerance:
        pv, gv = numeric_value(pred_canon, FLOAT), numeric_value(gold_canon, FLOAT)
        if (
            pv is not None
            and gv is not None
            and not isinstance(pv, complex)
            and not isinstance(gv, complex)
            and abs(pv - gv) <= tolerance * max(abs(pv), abs(gv))
        ):
            return "undecided"
    slip = forms.unit_slip(*values) if values else forms.unit_slip(pred_canon, gold_canon)
    return "undecided" if slip else "wrong"


_DECIMAL_RE = re.compile(r"^[+-]?\d*\.\d+$")


def _mixed_check(pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances) -> Outcome | None:
    """A mixed number (``2\\frac{1}{2}``) on one side: equal as 2 + 1/2; equal only as the
    product 2·1/2 → undecided; equal in neither reading → wrong."""
    for mixed_side, other in ((pred_canon, gold_canon), (gold_canon, pred_canon)):
        value = forms.mixed_number(mixed_side)
        if value is None:
            continue
        target = numeric_value(other, num)
        if target is None or isinstance(target, num.complex_type):
            return None
        if (
            compare_numbers(num.number(str(value.numerator)) / value.denominator, target, num)
            == "equal"
        ):
            return "equal"
        product = numeric_value(mixed_side, num)
        if product is not None and compare_numbers(product, target, num) == "equal":
            return "undecided"
        return _unless_approximation(pred_canon, gold_canon, num, tol)
    return None


def _rewritten(pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances) -> Outcome | None:
    """The pair without qualifiers ("for all x ∈ N", "only"), with "and" as a list comma and
    tuple assignments as lists of assignments (:func:`.qualifiers.plain_pair`): equal if
    the rewritten pair is; otherwise 'undecided' (a qualifier may matter; after "and"
    alone: the rewritten pair's outcome) or None when nothing was rewritten."""
    plain = plain_pair(pred_canon, gold_canon)
    if plain is None:
        return None
    pred, gold, qualified = plain
    found = _fast_check(pred, gold, num, tol)
    if not qualified:  # only "and" read as a comma: the same answer
        return found
    return "equal" if found == "equal" else "undecided" if found is not None else None


class _Next:
    """A stage of :func:`_fast_check` did not settle the pair: the next stage reads it
    (``None`` is an outcome: the rules cannot decide, math-verify is asked)."""


_NEXT = _Next()
Stage = Outcome | None | _Next


def _fast_check(pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances) -> Outcome | None:
    """The rules in order: the pair's special writings, then as numbers, as structures or
    choices, and last as expressions or text; the first stage that settles it decides."""
    if not pred_canon:
        return "wrong"
    if pred_canon == gold_canon:
        return "equal"
    found = _special_writings(pred_canon, gold_canon, num, tol)
    if not isinstance(found, _Next):
        return found
    found, pv, gv = _as_numbers(pred_canon, gold_canon, num, tol)
    if not isinstance(found, _Next):
        return found
    found = _as_structures(pred_canon, gold_canon, num, tol, pv, gv)
    if not isinstance(found, _Next):
        return found
    return _as_expressions(pred_canon, gold_canon, num, tol, pv, gv)


def _special_writings(pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances) -> Stage:
    """≈, degrees, qualifiers and tuple assignments, a renamed function variable, one
    assigned variable, mixed numbers."""
    if "\\approx" in pred_canon or "\\approx" in gold_canon:
        return _approx_check(pred_canon, gold_canon, num, tol)
    if forms.has_degrees(pred_canon) or forms.has_degrees(gold_canon):
        return forms.degree_check(pred_canon, gold_canon, num, partial(_fast_check, tol=tol))
    if any(mark in pred_canon + gold_canon for mark in ("\\text{", "=(", "\\in")):
        found = _rewritten(pred_canon, gold_canon, num, tol)
        if found is not None:
            return found
    renamed = rename_function_variable(pred_canon, gold_canon)
    if renamed is not None:
        return _fast_check(renamed, gold_canon, num, tol)
    # "x=5" against "5": the value assigned to a single variable is the answer
    pm, gm = _ASSIGN_RE.match(pred_canon), _ASSIGN_RE.match(gold_canon)
    if (pm is None) != (gm is None):
        found = None
        if pm is not None and "=" not in gold_canon:
            found = _fast_check(pm.group(1) or pm.group(2), gold_canon, num, tol)
        elif gm is not None and "=" not in pred_canon:
            found = _fast_check(pred_canon, gm.group(1) or gm.group(2), num, tol)
        if found is not None:
            return found  # else the rules below may still settle the pair as written
    mixed = _mixed_check(pred_canon, gold_canon, num, tol)
    return _NEXT if mixed is None else mixed


def _as_numbers(
    pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances
) -> tuple[Stage, Any, Any]:
    """Both sides as exact rationals, exact powers or numbers; their numeric values (None:
    not a number) for the stages after."""
    p, g = as_rational(pred_canon), as_rational(gold_canon)
    if p is not None and g is not None:
        if p == g:
            unreduced = forms.unreduced(pred_canon) and not forms.unreduced(gold_canon)
            return ("undecided" if unreduced else "equal"), None, None
        return _unless_approximation(pred_canon, gold_canon, num, tol, (p, g)), None, None
    if "^" in pred_canon or "^" in gold_canon:  # 3^{2021}-2^{2021}: exact, where doubles overflow
        p, g = numeric_value(pred_canon, EXACT), numeric_value(gold_canon, EXACT)
        if p is not None and g is not None:
            if p == g:
                return "equal", None, None
            return _unless_approximation(pred_canon, gold_canon, num, tol, (p, g)), None, None
    pv, gv = numeric_value(pred_canon, num), numeric_value(gold_canon, num)
    if pv is not None and gv is not None:
        outcome = compare_numbers(pv, gv, num)
        if outcome == "wrong":
            outcome = _unless_approximation(pred_canon, gold_canon, num, tol, (pv, gv))
        return outcome, pv, gv
    return _NEXT, pv, gv


def _as_structures(
    pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances, pv: Any, gv: Any
) -> Stage:
    """Decorations, m and n for m/n, tuples, sets and intervals (against each other or a
    number), option letters, relations the rules cannot read."""
    if pv is None or gv is None:
        found = forms.decoration_check(pred_canon, gold_canon, num)
        if found is not None:
            return found
    if forms.pair_and_quotient(pred_canon, gold_canon):
        return "undecided"  # 221, 8 for 221/8: asked for m and n, or for m/n
    ps = structure(pred_canon, num) if pv is None else None
    gs = structure(gold_canon, num) if gv is None else None
    # decimals on either side: a component may be a rounding of the other's (1.41 for √2)
    rounded = tol.rounding if _DECIMAL_IN_RE.search(pred_canon + gold_canon) else 0.0
    if ps is not None and gs is not None:
        return compare_structures(ps, gs, num, rounded)
    if ps is not None and gv is not None:
        return _number_against_structure(ps, gv, num, rounded)
    if gs is not None and pv is not None:
        return _number_against_structure(gs, pv, num, rounded)
    pc, gc = as_choice(pred_canon), as_choice(gold_canon)
    if pc is not None and gc is not None:
        return "equal" if pc == gc else "wrong"
    if (pc is None) != (gc is None) and not (pv is not None or gv is not None):
        return "undecided"  # an option letter against an expression: only the options tell
    p_rel, g_rel = bool(_RELATION_RE.search(pred_canon)), bool(_RELATION_RE.search(gold_canon))
    if (p_rel and not g_rel and ps is None) or (g_rel and not p_rel and gs is None):
        return "undecided"  # an inequality the rules cannot read against a value or interval
    return _NEXT


def _as_expressions(
    pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances, pv: Any, gv: Any
) -> Outcome | None:
    """Lists, equations, symbolic expressions, text; what only math-verify or the judge
    can settle stays undecided or None."""
    found = forms.list_check(pred_canon, gold_canon, num, partial(_fast_check, tol=tol))
    if found is not None:
        return found
    if ("=" in pred_canon) != ("=" in gold_canon):
        # an equation against an expression (named values are read above): y+1=-(2x-1)^2
        # against -4x^2+4x-2 is y = that expression; otherwise the judge's
        return solved_for(pred_canon, gold_canon, num) or "undecided"
    if pv is None or gv is None:
        found = symbolic_check(pred_canon, gold_canon, num)
        if found != "equal":
            found = (
                renamed_parameter(pred_canon, gold_canon, num)
                or found
                or _parametric_interval(pred_canon, gold_canon, num, tol)
            )
        if found is not None:
            return found
    found = text_check(pred_canon, gold_canon)
    if found is None and (has_bare_word(pred_canon) or has_bare_word(gold_canon)):
        return "undecided"  # prose outside \text{}: math-verify would multiply its letters
    if found is None and (_EXPENSIVE_RE.search(pred_canon) or _EXPENSIVE_RE.search(gold_canon)):
        # sums, integrals, limits, ellipses, floors, modular arithmetic and large exponents
        # that neither evaluator above could compute: sympy takes seconds on them, hits
        # the deadline or cannot decide them — the judge decides
        return "undecided"
    if found is None and _has_letters(pred_canon) != _has_letters(gold_canon):
        # variables on one side only: math-verify could at best find them cancelling, and
        # cannot call it confidently wrong (not plain math) — spare the worker call
        return "undecided"
    return found


# known command names first, without a word boundary: canonical forms drop spaces ("\sinx")
_RELATION_RE = re.compile(r"[<>]|\\(?:le|ge|leq|geq|lt|gt|leqslant|geqslant|neq|ne)(?![a-zA-Z])")
# (a bare 2^10 is not here: LaTeX reads 2¹0, its writer 1024 — math-verify's call)
# ellipses, floors and modular arithmetic: sympy cannot decide them symbolically either
# (no word boundary after the name: canonical forms drop spaces, "a_1\cdotsa_n")
_EXPENSIVE_RE = re.compile(
    r"\\(?:sum|prod|int|oint|lim|cdots|ldots|dots|lfloor|lceil|mod|pmod|bmod)"
    r"|\^\{-?\d{2,}"
)
_COMMAND_RE = re.compile(
    r"\\(?:text|mathrm|operatorname|begin|end)\{[^{}]*\}|"
    r"\\(?:arcsin|arccos|arctan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|ln|"
    r"log|exp|sqrt|frac|binom|cdot|times|div|pi|infty|circ|leq|geq|le|ge|pm|"
    r"mp|cup|cap)|\\[a-zA-Z]+|\\."
)


_GREEK_RE = re.compile(
    r"\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|"
    r"iota|kappa|lambda|mu|nu|xi|rho|sigma|tau|upsilon|phi|varphi|chi|psi|"
    r"omega|Gamma|Delta|Theta|Lambda|Xi|Sigma|Phi|Psi|Omega)(?![a-zA-Z])"
)


def _parametric_interval(
    pred_canon: str, gold_canon: str, num: Numbers, tol: Tolerances
) -> Outcome | None:
    """Intervals with variables in their endpoints (``(k\\pi-\\frac{\\pi}{3},k\\pi]``):
    'equal' for the same brackets and identical endpoints, else 'undecided'; None if not."""
    ends = []
    for text in (pred_canon, gold_canon):
        if len(text) < 5 or text[0] not in "([" or text[-1] not in ")]":
            return None
        parts = split_top(text[1:-1])
        if len(parts) != 2 or not all(parts) or not all(_balanced(p) for p in parts):
            return None  # (a),(b,c) is a list, not one bracket pair
        ends.append(parts)
    if not any(variables(end) for pair in ends for end in pair):
        return None  # numbers (45^\\circ): the structures' and math-verify's job
    outcomes = [_fast_check(a, b, num, tol) for a, b in zip(ends[0], ends[1])]
    if any(o is None for o in outcomes):
        return None
    same = pred_canon[0] + pred_canon[-1] == gold_canon[0] + gold_canon[-1]
    return "equal" if same and all(o == "equal" for o in outcomes) else "undecided"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        if depth < 0:
            return False
    return depth == 0


def _has_letters(canonical: str) -> bool:
    """Variables (letters other than e outside commands, Greek letters other than \\pi):
    ``T-18``, ``2F_{84}``, ``\\phi+1``."""
    return bool(re.search(r"[a-df-zA-Z]", _COMMAND_RE.sub(" ", _GREEK_RE.sub("v", canonical))))


_DECIMAL_IN_RE = re.compile(r"\d\.\d")


def _number_against_structure(
    struct: tuple, value: Any, num: Numbers, rounded: float = 0.0
) -> Outcome:
    """A number against a set: ``\\{3\\}`` is 3 written as a solution set (its element
    decides); a number that is one element of a larger set is one of several answers
    ('undecided'); a number in no element is 'wrong'. A number is never an interval, a
    tuple or a matrix ('wrong')."""
    if struct[0] != "set":
        return "wrong"
    outcomes = [compare_numbers(element, value, num) for element in struct[1]]
    if len(outcomes) == 1:
        if outcomes[0] == "wrong" and rounded and close(struct[1][0], value, rounded):
            return "undecided"  # 1.41 against \{\sqrt{2}\}
        return outcomes[0] or "undecided"
    if "equal" in outcomes or None in outcomes:
        return "undecided"
    return "wrong"
