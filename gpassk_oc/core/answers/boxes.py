"""``\\boxed{…}`` / ``\\fbox{…}`` groups in a reply, found in linear time (pure core).

A repetition loop of unclosed ``\\boxed{`` (common when a small model runs into its token
budget) made a fresh brace scan per box quadratic; here every brace is matched once.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["boxed_answers", "boxes_with_pos", "cut_in_box"]

_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])\s*")
_ESCAPE_RE = re.compile(r"\\[\\{}]")  # \{ \} are no braces; \\ escapes itself
_OPEN, _CLOSE = ord("{"), ord("}")
_BARE_TOKEN_RE = re.compile(r"[^\s$]+")


#: below this many characters a plain scan beats numpy's per-call overhead
_VECTOR_FROM = 4096
_BRACE_RE = re.compile(r"\\[\\{}]|[{}]")


def _closers(text: str, start: int = 0) -> dict[int, int]:
    """The index of the matching ``}`` of every ``{`` from *start* on (escaped braces
    skipped), in linear time: a fresh scan per box is quadratic on a loop of unclosed boxes.
    Short texts (most replies) are scanned with a stack; long ones vectorised, since a
    Python loop over every brace of a 200k-character reply is too slow.

    Vectorised: a ``{`` that raises the depth to d is closed by the next ``}`` that lowers
    it from d: sorted by (level, position), an opening brace's successor at its level is
    its closer.
    """
    if len(text) - start < _VECTOR_FROM:
        found: dict[int, int] = {}
        stack: list[int] = []
        for m in _BRACE_RE.finditer(text, start):
            brace = m.group()
            if brace == "{":
                stack.append(m.start())
            elif brace == "}" and stack:
                found[stack.pop()] = m.start()
        return found
    segment = _ESCAPE_RE.sub("__", text[start:])  # same length: positions are kept
    codes = np.frombuffer(segment.encode("utf-32-le"), dtype=np.uint32)
    pos = np.flatnonzero((codes == _OPEN) | (codes == _CLOSE))
    if pos.size < 2:
        return {}
    step = np.where(codes[pos] == _OPEN, 1, -1)
    depth = np.cumsum(step)  # depth after each brace
    level = np.where(step == 1, depth, depth + 1)
    order = np.lexsort((pos, level))
    lv, ps, st = level[order], pos[order] + start, step[order]
    pair = (st[:-1] == 1) & (st[1:] == -1) & (lv[:-1] == lv[1:])
    return dict(zip(ps[:-1][pair].tolist(), ps[1:][pair].tolist()))


def _unwrapped(text: str, a: int, b: int, closers: dict[int, int]) -> str:
    """``text[a:b]`` stripped, and ``{{5}}`` (a template artefact) → ``5``; ``{1}{2}`` is
    left alone. Index arithmetic on the reply's own brace map: no rescans, no copies."""
    while True:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b - a < 2 or text[a] != "{" or closers.get(a) != b - 1:
            return text[a:b]
        a, b = a + 1, b - 1


def boxes_with_pos(text: str) -> list[tuple[str, int]]:
    """Every box's content and position; a box inside a box already taken is part of it."""
    found: list[tuple[str, int]] = []
    closers: dict[int, int] | None = None
    taken_to = 0
    for match in _BOX_RE.finditer(text):
        if match.start() < taken_to:
            continue
        pos = match.end()
        if pos < len(text) and text[pos] == "{":
            if closers is None:
                closers = _closers(text, match.start())
            end = closers.get(pos)
            if end is not None:
                found.append((_unwrapped(text, pos + 1, end, closers), match.start()))
                taken_to = end
        elif pos > match.start() + 6 or (pos < len(text) and text[pos] not in "\\$"):
            token = _BARE_TOKEN_RE.match(text, pos)
            if token:
                found.append((token.group(0).strip(), match.start()))
    return found


def cut_in_box(text: str) -> bool:
    """True when the last box opened with a brace (``\\boxed{``, ``\\fbox{``) is never
    closed: the reply was cut inside its answer box (a token budget ran out), so its
    answer is unknown. An earlier complete box does not rescue it: a final restatement cut
    mid-box may have been about to change the answer. Linear: one backward search for the
    last opener, one brace pass over the text after it."""
    # each name's search resumes where it stopped: a loop of ``\\boxedx`` stays linear
    box, fbox = text.rfind("\\boxed"), text.rfind("\\fbox")
    while True:
        last = max(box, fbox)
        if last < 0:
            return False
        match = _BOX_RE.match(text, last)
        if match is None:  # \\boxedx: another macro, look further back
            if last == box:
                box = text.rfind("\\boxed", 0, last)
            else:
                fbox = text.rfind("\\fbox", 0, last)
            continue
        pos = match.end()
        if pos == len(text):  # cut right at the opener
            return True
        return text[pos] == "{" and pos not in _closers(text, pos)  # bare ``\\boxed 5``: complete


def boxed_answers(text: str) -> list[str]:
    """Every ``\\boxed``/``\\fbox`` content in order (``\\boxed 5`` form included)."""
    return [content for content, _ in boxes_with_pos(text or "")]
