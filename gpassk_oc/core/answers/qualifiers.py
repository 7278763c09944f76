"""Answers written with qualifiers, "and" lists or tuple assignments, as the plain pair the
rules check (pure core): a qualifier such as "for all x in N" or "only" is dropped, an
"and" between items becomes a list comma, and ``(f(n),g(n))=(n,1)`` becomes
``f(n)=n,g(n)=1``."""

from __future__ import annotations

import re

from gpassk_oc.core.answers.canonical import split_top

__all__ = ["plain_pair", "tuple_assignment"]

# "\text{for all } x \in \mathbb{N}", "\text{ where } c \text{ is ...}" after an answer; "only" before
_QUALIFIER_RE = re.compile(
    r",?\\text\{(?:for(?!ty|m)|where)[^{}]*\}.*$|^\\text\{only\}"
    # an integer parameter declared after a solution family: (k\in\mathbb{Z}), ,k∈Z
    r"|,?\(?[kmnt]\\in(?:\\mathbb\{Z\}|\\mathbf\{Z\}|Z)\)?$"
)
_AND_RE = re.compile(r"(?:\\q?quad)*\\text\{and\}(?:\\q?quad)*")  # "A \quad\text{and}\quad B" lists
_TUPLE_ASSIGN_RE = re.compile(r"^(\(.*\))=(\(.*\))$")


def tuple_assignment(canonical: str) -> str:
    """``(f(n),g(n))=(n,1)`` → ``f(n)=n,g(n)=1`` (names and values of the same count)."""
    m = _TUPLE_ASSIGN_RE.match(canonical)
    if m is None or "=" in m.group(1) or "=" in m.group(2):
        return canonical
    names, values = split_top(m.group(1)[1:-1]), split_top(m.group(2)[1:-1])
    if len(names) < 2 or len(names) != len(values) or not all(names) or not all(values):
        return canonical
    return ",".join(f"{n}={v}" for n, v in zip(names, values))


def plain_pair(pred_canon: str, gold_canon: str) -> tuple[str, str, bool] | None:
    """The pair rewritten (see the module docstring) and whether a qualifier or a tuple
    assignment was rewritten (not only an "and"); None when nothing was rewritten or a
    side is left empty."""
    pair, qualified = [], False
    for text in (pred_canon, gold_canon):
        if ("\\text{" in text or "\\in" in text) and "\\begin" not in text:
            bare = _QUALIFIER_RE.sub("", text)
            qualified = qualified or bare != text
            text = _AND_RE.sub(",", bare)
        if "=(" in text:
            assigned = tuple_assignment(text)
            qualified = qualified or assigned != text
            text = assigned
        pair.append(text)
    if pair == [pred_canon, gold_canon] or not all(pair):
        return None
    return pair[0], pair[1], qualified
