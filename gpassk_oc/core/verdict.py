"""Strict parsing of a judge model's reply into yes / no / unparseable (pure core).

The judge is asked to end with ``\\boxed{yes}`` or ``\\boxed{no}``. We read the *last*
box only, tolerate whitespace, case, doubled braces (``\\boxed{{yes}}``), ``\\text{}``
wrappers and Chinese 是/否 (also 正确/错误, 对/错). Anything else is unparseable (None):
never "the first A anywhere in the reply".
"""
from __future__ import annotations

import re
from typing import Literal, Optional

from .answers import boxed_answers

Verdict = Literal["yes", "no"]

_YES = {"yes", "y", "true", "correct", "是", "正确", "对", "a"}
_NO = {"no", "n", "false", "incorrect", "否", "错误", "错", "不正确", "b"}
_STRIP_RE = re.compile(r"^\\text\{(.*)\}$|^\\mathrm\{(.*)\}$|^\\textbf\{(.*)\}$")


def _normalise(token: str) -> str:
    token = token.strip()
    for _ in range(3):  # unwrap {{yes}}, \text{yes}, {\text{yes}}
        token = token.strip().strip("{}").strip()
        match = _STRIP_RE.match(token)
        if match:
            token = next(g for g in match.groups() if g is not None)
    return token.strip().strip(".。!！").lower()


def parse_verdict(reply: Optional[str]) -> Optional[Verdict]:
    """'yes', 'no', or None when the reply has no parseable final verdict."""
    if not reply:
        return None
    boxes = boxed_answers(reply)
    if not boxes:
        return None
    token = _normalise(boxes[-1])
    if token in _YES:
        return "yes"
    if token in _NO:
        return "no"
    return None
