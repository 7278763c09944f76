"""Strict parsing of a judge model's reply into yes / no / unparseable (pure core).

The judge is asked to end with ``\\boxed{yes}`` or ``\\boxed{no}``. Rules:

* Only the **last** box counts (earlier boxes may quote the candidate's answer).
* Inside it we tolerate whitespace, case, trailing punctuation, doubled braces
  (``\\boxed{{yes}}``), any nesting of ``\\text{}``/``\\textbf{}``/``\\mathrm{}``/
  ``\\mathbf{}``, and the words ``yes/no``, ``true/false``, ``correct/incorrect``,
  Chinese ``是/否``, ``正确/错误``, ``对/错``, and the option letters ``A`` (= correct) /
  ``B`` (= incorrect) used by OpenCompass's generic judge template.
* Without any box, a reply that *is* a single verdict word (``yes``, ``No.``, ``是``) is
  accepted — compact judges such as LiveMath-Judge answer that way. Letters are not
  accepted outside a box.
* Anything else is unparseable (``None``): never "the first A or yes anywhere in the reply".
"""
from __future__ import annotations

import re
from typing import Literal, Optional

from .answers import boxed_answers

Verdict = Literal["yes", "no"]

_YES = {"yes", "y", "true", "correct", "是", "正确", "对", "a"}
_NO = {"no", "n", "false", "incorrect", "否", "错误", "错", "不正确", "b"}
_BARE_YES = {"yes", "是", "正确"}
_BARE_NO = {"no", "否", "错误", "不正确"}
_WRAPPER_RE = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mathbf|mbox|texttt)\s*\{(.*)\}$", re.S)
_PUNCT = " \t\r\n.。!！:：,，;；'\"`*"


def _normalise(token: str) -> str:
    previous = None
    while token != previous:  # unwrap {{yes}}, \text{Yes}, {\textbf{yes}} ... to a fixpoint
        previous = token
        token = token.strip().strip(_PUNCT)
        if token.startswith("{") and token.endswith("}"):
            token = token[1:-1]
        match = _WRAPPER_RE.match(token.strip())
        if match:
            token = match.group(1)
    return token.strip().lower()


def parse_verdict(reply: Optional[str]) -> Optional[Verdict]:
    """'yes', 'no', or None when the reply has no parseable final verdict."""
    if not reply:
        return None
    boxes = boxed_answers(reply)
    if not boxes:
        bare = _normalise(reply)
        if bare in _BARE_YES:
            return "yes"
        if bare in _BARE_NO:
            return "no"
        return None
    token = _normalise(boxes[-1])
    if token in _YES:
        return "yes"
    if token in _NO:
        return "no"
    return None
