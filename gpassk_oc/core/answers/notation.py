"""Notations a question may prescribe: where equal values are still the judge's call (pure core).

Questions often fix how the answer is written: "express your answer as a common fraction",
"as a decimal to the nearest tenth". Only the judge sees the question, so when one side
writes a value as a decimal and the other as a fraction, the rules do not call them equal,
however exactly the values agree (``0.25`` against ``\\frac{1}{4}``, ``10.5\\pi`` against
``\\frac{21}{2}\\pi``): the pair is 'undecided'. A decimal whose digits after the point are
all zeros (``3.0``) is an integer and prescribes nothing.

:func:`settle` applies this to an outcome of any rule or of math-verify; the rule pipeline
(:mod:`.checking`) calls it once for every pair.
"""

from __future__ import annotations

import re

from gpassk_oc.core.answers.numeric import Outcome

__all__ = ["decimal_against_fraction", "settle"]

# a decimal with a non-zero digit after the point, or a repeating decimal (0.\overline{3},
# 0.\dot{3})
_DECIMAL_RE = re.compile(r"\d*\.(?:\d*[1-9]|\d*\\(?:overline|dot)(?![a-zA-Z]))")
# \frac, \dfrac, \tfrac, \cfrac, {1 \over 2}, or a slash between numbers, names or groups
# (3/4, \pi/4, x/2, (1+x)/2)
_FRACTION_RE = re.compile(r"\\[dtc]?frac(?![a-zA-Z])|\\over(?![a-zA-Z])|[\w)}]\s*/\s*[\w({\\]")


def _writes_decimal(canonical: str) -> bool:
    return bool(_DECIMAL_RE.search(canonical))


def _writes_fraction(canonical: str) -> bool:
    return bool(_FRACTION_RE.search(canonical))


def decimal_against_fraction(pred_canon: str, gold_canon: str) -> bool:
    """True when one side writes a decimal and no fraction, the other a fraction and no
    decimal (canonical forms)."""
    pd, pf = _writes_decimal(pred_canon), _writes_fraction(pred_canon)
    gd, gf = _writes_decimal(gold_canon), _writes_fraction(gold_canon)
    return (pd and not pf and gf and not gd) or (gd and not gf and pf and not pd)


def settle(pred_canon: str, gold_canon: str, outcome: Outcome | None) -> Outcome | None:
    """*outcome*, except 'equal' across a decimal and a fraction, which is 'undecided'."""
    if outcome == "equal" and decimal_against_fraction(pred_canon, gold_canon):
        return "undecided"
    return outcome
