"""Answers with variables (pure core): identities of expressions and equations at generic
points, renamed function variables and renamed integer parameters of angle families.

Split out of :mod:`.rules` (which calls these in order); none of them is ever *confidently
wrong*: variables may carry a meaning the problem gives them, so a difference is
'undecided' and the judge decides.
"""

from __future__ import annotations

import re

from gpassk_oc.core.answers.numeric import (
    FLOAT,
    Numbers,
    Outcome,
    compare_numbers,
    values_at_common_points,
    variables,
)

__all__ = [
    "symbolic_check",
    "equation_check",
    "rename_function_variable",
    "renamed_parameter",
    "solved_for",
]


def equation_check(pred_canon: str, gold_canon: str, num: Numbers) -> Outcome | None:
    """Equations l1=r1, l2=r2 are the same when l1-r1 = c·(l2-r2) for one constant c ≠ 0,
    tested at generic points (``y=3x+2`` ≡ ``3x-y+2=0``); otherwise 'undecided'."""
    sides = [pred_canon.split("="), gold_canon.split("=")]
    if any(not side.strip() for pair in sides for side in pair):
        return None
    found = [variables(side) for pair in sides for side in pair]
    sides_vars = [v for v in found if v is not None]
    if len(sides_vars) < len(found):
        return None
    names = sorted(set().union(*sides_vars))
    if not names:
        return None
    values = values_at_common_points([side for pair in sides for side in pair], names, num)
    if values is None:
        return None
    f1 = [l - r for l, r in zip(values[0], values[1])]
    f2 = [l - r for l, r in zip(values[2], values[3])]
    if any(abs(y) < 1e-9 for y in f2) or any(abs(x) < 1e-9 for x in f1):
        return None  # a point on the curve: ratio undefined, let math-verify decide
    ratios = [x / y for x, y in zip(f1, f2)]
    outcomes = [compare_numbers(ratios[0], r, num) for r in ratios[1:]]
    if all(o == "equal" for o in outcomes):
        return "equal"
    if "wrong" in outcomes:
        return "undecided"
    return None


def symbolic_check(pred_canon: str, gold_canon: str, num: Numbers = FLOAT) -> Outcome | None:
    """Identity test of single-variable-letter expressions at three fixed irrational points.

    Equations (one ``=`` each) are compared up to a constant factor by :func:`equation_check`.
    Equal at every point (within 1e-30 relative, 50-digit arithmetic) → 'equal' (a polynomial/rational identity that
    holds at generic points, Schwartz–Zippel); different at some point → 'undecided': not
    equal, yet not *confidently wrong* because variables are involved (e.g. the problem may
    define x), so cascade asks the judge and rules mode scores it False. None otherwise.
    """
    if pred_canon.count("=") == 1 and gold_canon.count("=") == 1:
        return equation_check(pred_canon, gold_canon, num)
    pv, gv = variables(pred_canon), variables(gold_canon)
    if pv is None or gv is None or not (pv or gv):
        return None
    names = sorted(set(pv) | set(gv))
    values = values_at_common_points([pred_canon, gold_canon], names, num)
    if values is None:
        return None
    a, b = values
    outcomes = [compare_numbers(x, y, num) for x, y in zip(a, b)]
    if all(o == "equal" for o in outcomes):
        return "equal"
    if "wrong" in outcomes:
        return "undecided"
    return None


_FUNCTION_RE = re.compile(r"^([a-zA-Z])\(([a-z])\)=(.+)$")


def rename_function_variable(pred_canon: str, gold_canon: str) -> str | None:
    """``f(x)=2x`` against ``f(z)=2z``: *pred* with its variable renamed to the gold's."""
    pm, gm = _FUNCTION_RE.match(pred_canon), _FUNCTION_RE.match(gold_canon)
    if pm is None or gm is None or pm.group(1) != gm.group(1) or pm.group(2) == gm.group(2):
        return None
    old, new = pm.group(2), gm.group(2)
    body = pm.group(3)
    if re.search(rf"(?<![\\a-zA-Z]){new}(?![a-zA-Z])", body):
        return None  # the gold's variable already appears: renaming would merge two
    body = re.sub(rf"(?<![\\a-zA-Z]){old}(?![a-zA-Z])", new, body)
    return f"{pm.group(1)}({new})={body}"


_PARAMETERS = ("k", "n", "m", "t")  # integer parameters of solution families (x = k\pi)


def renamed_parameter(pred_canon: str, gold_canon: str, num: Numbers) -> Outcome | None:
    """``n\\pi`` against ``k\\pi``: angle families with one integer parameter on each side,
    named differently — 'equal' when renaming makes the sides identical, else None."""
    if "\\pi" not in pred_canon or "\\pi" not in gold_canon:
        return None  # only angle families (x = k\\pi + …); "n+1" for "k+1" may be a slip
    pv, gv = variables(pred_canon), variables(gold_canon)
    if (
        pv is None
        or gv is None
        or len(pv) != 1
        or len(gv) != 1
        or pv == gv
        or pv[0] not in _PARAMETERS
        or gv[0] not in _PARAMETERS
    ):
        return None
    renamed = re.sub(rf"(?<![\\a-zA-Z]){pv[0]}(?![a-zA-Z_])", gv[0], pred_canon)
    return "equal" if symbolic_check(renamed, gold_canon, num) == "equal" else None


def solved_for(pred_canon: str, gold_canon: str, num: Numbers) -> Outcome | None:
    """An equation against an expression that lacks exactly one of its variables v: 'equal'
    when the equation is v = expression (up to a constant factor), else None."""
    equation, expression = (
        (pred_canon, gold_canon) if "=" in pred_canon else (gold_canon, pred_canon)
    )
    if equation.count("=") != 1:
        return None
    sides = [variables(side) for side in equation.split("=")]
    expr_vars = variables(expression)
    if expr_vars is None or any(v is None for v in sides):
        return None
    missing = set().union(*sides) - set(expr_vars)  # type: ignore[arg-type]
    if len(missing) != 1:
        return None
    found = equation_check(f"{missing.pop()}={expression}", equation, num)
    return "equal" if found == "equal" else None
