"""Structured answers: intervals, finite sets and numeric matrices (pure core).

``(1,2]``, ``-1<x\\le 2``, ``2\\ge x>-1``, ``x>3``, ``3<x`` (intervals with two endpoints: an
inequality in one variable states the same set), ``\\{1,2,3\\}`` (finite sets of closed
values), points ``(1,2)`` and p/b/B/plain matrices of closed values are read into tuples and
compared elementwise; bracket style of a matrix is typography, ``vmatrix`` (a determinant)
is not read. A point that is another point reordered is 'undecided' (right when the problem
is symmetric in its unknowns), never 'wrong' or 'equal'.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gpassk_oc.core.answers.canonical import split_top
from gpassk_oc.core.answers.numeric import FLOAT, Numbers, Outcome, compare_numbers, numeric_value


def _endpoint(text: str, num: Numbers) -> Any | None:
    if text in ("\\infty", "+\\infty"):
        return math.inf
    if text == "-\\infty":
        return -math.inf
    value = numeric_value(text, num)
    return None if isinstance(value, complex) else value


_REL = r"(<|>|\\le|\\leq|\\ge|\\geq|\\leqslant|\\geqslant)"
# a bound: numbers and commands such as \frac, \sqrt, \pi (not the relations themselves)
_BOUND = r"((?:\\(?!le|ge|lt|gt)[a-zA-Z]+|[^<>=a-zA-Z\\])+)"
_CHAIN_RE = re.compile(rf"^{_BOUND}{_REL}([a-zA-Z]){_REL}{_BOUND}$")
_SIMPLE_RE = re.compile(rf"^([a-zA-Z]){_REL}{_BOUND}$")
_REVERSED_RE = re.compile(rf"^{_BOUND}{_REL}([a-zA-Z])$")
_FLIP = {"<": ">", ">": "<", "\\le": "\\ge", "\\leq": "\\geq", "\\ge": "\\le", "\\geq": "\\leq"}
_FLIP.update({"\\leqslant": "\\geqslant", "\\geqslant": "\\leqslant"})


def _lower(op: str) -> bool:
    return op.startswith(("<", "\\le"))


def _inequality_interval(canonical: str, num: Numbers) -> tuple | None:
    """``-1<x\\le2`` or ``2\\ge x>-1`` → ('interval', '(]', -1, 2); ``x>3`` or ``3<x`` →
    ('interval', '()', 3, inf): the same statement about x, read either way round."""
    if "<" not in canonical and ">" not in canonical and "\\" not in canonical:
        return None
    m = _CHAIN_RE.match(canonical)
    if m:
        lo, op1, _, op2, hi = m.groups()
        if not _lower(op1) and not _lower(op2):  # 2 > x > -1 is -1 < x < 2
            lo, op1, op2, hi = hi, _FLIP[op2], _FLIP[op1], lo
        if not (_lower(op1) and _lower(op2)):
            return None  # 1 < x > 0 bounds x on one side twice: not an interval
        lo_v, hi_v = numeric_value(lo, num), numeric_value(hi, num)
        if lo_v is None or hi_v is None or isinstance(lo_v, complex) or isinstance(hi_v, complex):
            return None
        return ("interval", ("(" if op1 == "<" else "[") + (")" if op2 == "<" else "]"), lo_v, hi_v)
    m, r = _SIMPLE_RE.match(canonical), _REVERSED_RE.match(canonical)
    if m or r:
        if m:
            _, op, bound = m.groups()
        else:
            assert r is not None
            bound, op = r.group(1), _FLIP[r.group(2)]  # 3 < x is x > 3
        value = numeric_value(bound, num)
        if value is None or isinstance(value, complex):
            return None
        if op == ">" or op.startswith("\\ge"):
            return ("interval", ("(" if op == ">" else "[") + ")", value, math.inf)
        return ("interval", "(" + (")" if op == "<" else "]"), -math.inf, value)
    return None


# ∪, "or" (also Chinese 或) between the parts of a union
_UNION_SEPARATORS = ("\\cup", "\\text{or}", "\\lor", "\\text{或}", "或")
_SET_BUILDER_RE = re.compile(r"^\\\{[a-z](?:\\in\\mathbb\{R\})?(?:\||\\mid)(.+)\\\}$")
_MATRIX_RE = re.compile(r"^\\begin\{([pbB]?matrix)\}(.*)\\end\{\1\}$")


def structure(canonical: str, num: Numbers = FLOAT) -> tuple | None:
    """('set', sorted values) for ``\\{a,b\\}``, ('interval', brackets, a, b) for ``(a,b]``,
    ('union', intervals) for intervals joined by ``\\cup``,
    ('tuple', length, values) for a point ``(1000, 10)`` / ``(1, 2, 3)`` that is no interval,
    ('matrix', rows, values) for a numeric p/b/B/plain matrix (bracket style is typography;
    vmatrix is a determinant and is not read), else None."""
    builder = _SET_BUILDER_RE.match(canonical)
    if builder:  # \{x|-1<x<1\} is the interval (-1,1)
        canonical = builder.group(1)
    if any(sep in canonical for sep in _UNION_SEPARATORS):
        return _union(canonical, num)
    interval = _inequality_interval(canonical, num)
    if interval is not None:
        return interval
    m = _MATRIX_RE.match(canonical)
    if m:
        rows = [r.split("&") for r in m.group(2).split("\\\\")]
        if rows and rows[-1] == [""]:
            rows = rows[:-1]  # a trailing \\\\ before \\end
        if not rows or len({len(r) for r in rows}) != 1:
            return None
        values = [numeric_value(x, num) for r in rows for x in r]
        if any(v is None for v in values):
            return None
        return ("matrix", (len(rows), len(rows[0])), values)
    if canonical.startswith("\\{") and canonical.endswith("\\}"):
        inner = canonical[2:-2]
        values = [numeric_value(x, num) for x in split_top(inner)] if inner else []
        if any(v is None or isinstance(v, complex) for v in values):
            return None
        return ("set", sorted(values))
    if len(canonical) >= 5 and canonical[0] in "([" and canonical[-1] in ")]":
        parts = split_top(canonical[1:-1])
        if len(parts) == 2:
            lo, hi = _endpoint(parts[0], num), _endpoint(parts[1], num)
            if (
                lo is not None
                and hi is not None
                and not (isinstance(lo, num.complex_type) or isinstance(hi, num.complex_type))
                and lo < hi
            ):  # (1000, 10) is a pair, not an interval
                return ("interval", canonical[0] + canonical[-1], lo, hi)
        if canonical[0] == "(" and canonical[-1] == ")" and len(parts) >= 2:
            values = [numeric_value(x, num) for x in parts]
            if all(v is not None and not isinstance(v, num.complex_type) for v in values):
                return ("tuple", len(values), values)
    return None


_POINT_RE = re.compile(r"^[a-zA-Z]=([^=<>]+)$")  # "a=1" in "a\\le-2\\text{or}a=1"


def _union(canonical: str, num: Numbers) -> tuple | None:
    """('union', disjoint intervals sorted) for ``(-\\infty,-8)\\cup(4,\\infty)`` or
    ``x<-8\\text{or}x>4``: parts are intervals, finite sets (points) or ``x=c``; overlapping
    and touching parts are merged, so equal sets have equal unions."""
    depth, parts, start = 0, [], 0
    for i, ch in enumerate(canonical):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if depth == 0:
            for sep in _UNION_SEPARATORS:
                if canonical.startswith(sep, i):
                    parts.append(canonical[start:i])
                    start = i + len(sep)
    parts.append(canonical[start:])
    if len(parts) < 2 or not all(parts):
        return None  # no top-level \cup (unbalanced brackets) or an empty part
    pieces: list[tuple] = []
    for part in parts:
        point = _POINT_RE.match(part)
        read = structure(point.group(1) if point else part, num)
        if point and read is None:
            value = _endpoint(point.group(1), num)
            read = ("set", [value]) if value is not None else None
        if read is None or read[0] not in ("interval", "set", "union"):
            return None
        if read[0] == "set":
            pieces.extend(("interval", "[]", v, v) for v in read[1])
        elif read[0] == "union":
            pieces.extend(read[1])
        else:
            pieces.append(read)
    if all(piece[2] == piece[3] for piece in pieces):
        return None  # "x=1\\text{or}x=2" is a list of solutions (forms.list_check)
    merged = _merge(sorted(pieces, key=lambda r: (r[2], r[3])), num)
    return ("union", merged) if merged is not None else None


def _same(a: Any, b: Any, num: Numbers) -> bool | None:
    if math.isinf(a) or math.isinf(b):
        return a == b
    outcome = compare_numbers(a, b, num)
    return None if outcome is None else outcome == "equal"


def _merge(pieces: list[tuple], num: Numbers) -> list[tuple] | None:
    """Sorted intervals with overlapping or touching ones joined; None when two endpoints are
    too close to tell apart."""
    out: list[tuple] = []
    for piece in pieces:
        if not out:
            out.append(piece)
            continue
        _, br, lo, hi = out[-1]
        _, pbr, plo, phi = piece
        touch = _same(hi, plo, num)
        if touch is None:
            return None
        if not touch and plo > hi:
            out.append(piece)
            continue
        if touch and br[1] == ")" and pbr[0] == "(":
            out.append(piece)  # (0,1)\cup(1,2): the point 1 is missing
            continue
        end = _same(hi, phi, num)
        if end is None:
            return None
        if end:
            right = "]" if "]" in (br[1], pbr[1]) else ")"
            new_hi = hi
        elif phi > hi:
            right, new_hi = pbr[1], phi
        else:
            right, new_hi = br[1], hi
        start = _same(lo, plo, num)
        if start is None:
            return None
        left = "[" if start and "[" in (br[0], pbr[0]) else br[0]
        out[-1] = ("interval", left + right, lo, new_hi)
    return out


def _as_tuple(s: tuple) -> tuple:
    """An open interval (a, b) is written like the point (a, b), a one-row or one-column
    matrix lists a vector's coordinates: read them as tuples."""
    if s[0] == "interval" and s[1] == "()" and not any(math.isinf(v) for v in s[2:]):
        return ("tuple", 2, list(s[2:]))
    if s[0] == "matrix" and 1 in s[1]:
        return ("tuple", len(s[2]), list(s[2]))
    return s


def compare_structures(
    p: tuple, g: tuple, num: Numbers = FLOAT, rounded: float = 0.0
) -> Outcome | None:
    """Two structures of one kind elementwise: 'equal' / 'wrong', or None (undecidable here).

    *rounded* > 0 (one side writes decimals): components that differ by at most that
    relative amount may be roundings (``(0, 1.41)`` for ``(0, \\sqrt{2})``): 'undecided'
    instead of 'wrong' when every difference is one."""
    if p[0] != g[0] and "tuple" in (p[0], g[0]):
        p, g = _as_tuple(p), _as_tuple(g)
    if p[0] != g[0] and "union" in (p[0], g[0]) and "interval" in (p[0], g[0]):
        p, g = [s if s[0] == "union" else ("union", [s]) for s in (p, g)]  # a union of one
    if p[0] == g[0] == "union":
        if len(p[1]) != len(g[1]):
            return "wrong"  # merged: different numbers of disjoint pieces
        outcomes = [compare_structures(a, b, num, rounded) for a, b in zip(p[1], g[1])]
        if any(o is None for o in outcomes):
            return None
        if all(o == "equal" for o in outcomes):
            return "equal"
        return "wrong" if "wrong" in outcomes else "undecided"
    if {p[0], g[0]} in ({"set", "interval"}, {"set", "union"}):
        return "undecided"  # {1,2} against k\\ge2: the variable may be an integer — the judge's
    if {p[0], g[0]} == {"set", "tuple"}:
        # {1,3} against (3,1): the same values, as solutions or as an ordered answer
        pv, gv = (p[1] if p[0] == "set" else p[2]), (g[1] if g[0] == "set" else g[2])
        return "undecided" if _permutation(pv, gv, num) else "wrong"
    if p[0] != g[0]:
        return None
    if p[0] == "interval":
        if p[1] != g[1]:
            return "wrong"
        values = list(zip(p[2:], g[2:]))
    elif p[0] == "tuple":
        if p[1] != g[1]:
            return "wrong"  # different lengths
        values = list(zip(p[2], g[2]))
    elif p[0] == "matrix":
        if p[1] != g[1]:
            return "wrong"  # different shapes
        values = list(zip(p[2], g[2]))
    else:
        if len(p[1]) != len(g[1]) or len(set(p[1])) != len(p[1]) or len(set(g[1])) != len(g[1]):
            return None  # sizes differ or repeated elements: leave it to math-verify
        values = list(zip(p[1], g[1]))
    outcomes = [_compare(a, b, num) for a, b in values]
    if any(o is None for o in outcomes):
        return None
    if all(o == "equal" for o in outcomes):
        return "equal"
    if p[0] == "tuple" and _permutation(p[2], g[2], num):
        return "undecided"  # (3,1) for (1,3): right if the problem is symmetric — the judge's
    if rounded and all(o == "equal" or close(a, b, rounded) for o, (a, b) in zip(outcomes, values)):
        return "undecided"
    return "wrong"


def close(a: Any, b: Any, rounded: float) -> bool:
    """Finite values within *rounded* of each other, relative to the larger."""
    if math.isinf(a) or math.isinf(b) or isinstance(a, complex) or isinstance(b, complex):
        return False
    return abs(float(a) - float(b)) <= rounded * max(abs(float(a)), abs(float(b)))


def _compare(a: Any, b: Any, num: Numbers) -> Outcome | None:
    if math.isinf(a) or math.isinf(b):
        return "equal" if a == b else "wrong"
    return compare_numbers(a, b, num)


def _permutation(a: list, b: list, num: Numbers) -> bool:
    """*a* is *b* reordered: every value of *a* matched to its own value of *b*."""
    left = list(b)
    for x in a:
        j = next((i for i, y in enumerate(left) if _compare(x, y, num) == "equal"), None)
        if j is None:
            return False
        del left[j]
    return not left
