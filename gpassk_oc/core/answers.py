"""Final-answer extraction, canonical forms and rule-based equivalence (pure core).

* :func:`extract_final_answer` takes the content of the last ``\\boxed{...}`` or
  ``\\fbox{...}`` (nested braces allowed); when the response has no box it falls back to
  an explicit "final answer is ..." / "答案是 ..." statement, and otherwise returns None
  (no guessing from the last number: a wrong guess would be scored, a None is visible).
* :func:`canonical_answer` is a cheap normal form used to deduplicate answers before any
  expensive check (whitespace, ``\\left``/``\\right``, ``\\dfrac``, trailing period, …).
* :func:`answers_equivalent` decides with math-verify whether a prediction equals the gold
  answer.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Optional

_BOX_RE = re.compile(r"\\(?:boxed|fbox)\s*")
_FALLBACK_RES = (
    re.compile(r"(?:final answer|the answer)\s*(?:is|:)\s*(.+?)\s*(?:\.\s*)?$", re.I | re.M),
    re.compile(r"(?:最终答案|答案)\s*(?:是|为|:|：)\s*(.+?)\s*[。.]?\s*$", re.M),
)


def _braced(text: str, start: int) -> Optional[tuple[str, int]]:
    """Content of the brace group opening at text[start] == '{', and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    return None


def boxed_answers(text: str) -> list[str]:
    """Every ``\\boxed``/``\\fbox`` content in order (``\\boxed 5`` form included)."""
    found = []
    for match in _BOX_RE.finditer(text):
        pos = match.end()
        if pos < len(text) and text[pos] == "{":
            group = _braced(text, pos)
            if group is not None:
                found.append(group[0].strip())
        elif match.group(0).endswith((" ", "\t")) or (pos < len(text) and text[pos] != "\\"):
            token = re.match(r"[^\s$]+", text[pos:])
            if token:
                found.append(token.group(0).strip())
    return found


def extract_final_answer(text: Optional[str]) -> Optional[str]:
    """The final answer of a model response, or None when it states none."""
    if not text:
        return None
    boxes = boxed_answers(text)
    if boxes:
        return boxes[-1]
    for pattern in _FALLBACK_RES:
        matches = pattern.findall(text)
        if matches:
            return matches[-1].strip().strip("$").strip()
    return None


_CANON_SUBS = (
    (re.compile(r"\\left|\\right|\\!|\\,|\\;|\\:|\\ "), ""),
    (re.compile(r"\\[dt]frac"), r"\\frac"),
    (re.compile(r"\\text\{\s*\}"), ""),
    (re.compile(r"\s+"), ""),
    (re.compile(r"^\$+|\$+$"), ""),
    (re.compile(r"[.。]$"), ""),
)


def canonical_answer(answer: Optional[str]) -> str:
    """Cheap normal form for deduplication; equal forms are certainly the same answer."""
    if answer is None:
        return ""
    text = answer.strip()
    for pattern, repl in _CANON_SUBS:
        text = pattern.sub(repl, text)
    return text


@lru_cache(maxsize=65536)
def _parse(latex: str, use_timeout: bool):
    from math_verify import parse

    return parse(f"${latex}$", parsing_timeout=5 if use_timeout else None)


def answers_equivalent(prediction: Optional[str], gold: str) -> bool:
    """True when math-verify finds *prediction* equal to *gold* (both final answers)."""
    if prediction is None or not prediction.strip():
        return False
    if canonical_answer(prediction) == canonical_answer(gold):
        return True
    from math_verify import verify

    # math-verify's own timeout uses SIGALRM, which only works in the main thread
    main = threading.current_thread() is threading.main_thread()
    try:
        gold_parsed = _parse(gold, main)
        pred_parsed = _parse(prediction, main)
        if not gold_parsed or not pred_parsed:
            return False
        return bool(verify(gold_parsed, pred_parsed, timeout_seconds=5 if main else None))
    except Exception:  # math-verify raises on pathological input; not equal is the safe answer
        return False
