"""Final-answer extraction from what models actually write (pure core).

:func:`extract_answer` looks, in order, for

1. ``boxed`` — the content of the *last* ``\\boxed{...}`` / ``\\fbox{...}`` (nested braces,
   ``\\boxed 5`` without braces, ``\\boxed{{5}}`` double braces). Boxes on the line holding
   the last box are one multi-part answer, joined as a comma list (``\\boxed{1}, \\boxed{2}``
   → ``"1, 2"``); boxes on earlier lines are intermediate results.
2. ``statement`` — the last explicit final-answer statement: English ("The final answer
   is X", "the answer is X", "Answer: X", "**Final Answer** X", "The correct option is X")
   or Chinese (``【答案】X``, ``答案：X``, ``答案是/为X``, ``故答案为X``, ``最终答案是X``,
   ``答：X``, ``故选X``, ``正确答案是X``). X runs to the end of
   its sentence; a display formula right after the marker is taken whole. A statement
   followed by more than 800 characters of further text keeps its answer but counts as a
   ``fallback`` (it may not be the final word).
3. ``fallback`` — the last math expression of the final sentence that has one, within the
   last paragraphs: a ``$…$`` / ``\\(…\\)`` / ``\\[…\\]`` formula (its right-hand side after
   ``=``), else a ``**bold**`` phrase, else the number after the last "is"/"=", else the
   last number. A guess: cascade mode never settles a non-matching fallback answer as
   wrong, it sends the response's last paragraph (:attr:`Extraction.candidate`) to the judge.
4. ``none`` — nothing found: an empty response, or no math in its last paragraphs (a
   truncated or prose-only ending); such a sample has no answer.

Before all of these: a reply whose last box opened with a brace never closes
(``… so the area is \\boxed{4``, ``\\boxed{4\\sqrt{``) was cut inside its answer box —
``truncated``: no answer, no candidate, never judged, scored wrong. The digits already
written are not the answer (``\\boxed{4`` may have been ``\\boxed{45}``), and an earlier
complete box does not count either: the cut final box may have been a correction.

:func:`extract_reply` first splits a reasoning trace at its last closing think tag
(:mod:`.reasoning`) and reads only the answer part; a reply whose thinking never closed is
``truncated``: no answer, no candidate. Every result records how its answer was found
(:attr:`Extraction.found`).

Reading is linear in the reply's length (a repetition loop of unclosed ``\\boxed{``,
``\\(`` or answer markers must not stall the evaluator): brace groups are matched in one
pass, formulas cannot span an unclosed opener, statements are read from a bounded window.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from functools import lru_cache
from itertools import islice
from typing import NamedTuple

from gpassk_oc.core.answers.arguments import optional_answer_text
from gpassk_oc.core.answers.boxes import boxed_answers as boxed_answers  # re-exported
from gpassk_oc.core.answers.boxes import boxes_with_pos, cut_in_box
from gpassk_oc.core.answers.reasoning import DEFAULT_THINK_TAGS, ThinkTags, split_reply
from gpassk_oc.core.vocabulary import Found as Found  # re-exported

FOUND_KINDS: tuple[str, ...] = Found.values()


class Extraction(NamedTuple):
    """The final answer of one response and how it was found.

    ``candidate`` is what the judge is shown: the answer itself, or for a ``fallback`` and a
    non-empty response with no answer found (``none``) the response's last paragraph (the
    guess may have picked the wrong expression; a prose answer has none to pick); None only
    for an empty response and a truncated one (``found='truncated'``, never judged).
    """

    answer: str | None
    found: Found
    candidate: str | None


def _answer_from_tail(tail: str) -> str | None:
    """'' for only empty boxes, None for no complete box, else the (joined) answer."""
    boxes = boxes_with_pos(tail)
    if not boxes:
        return None
    return ", ".join(b for b, _ in boxes if b)


# short final lines repeat a lot across samples; long tails (a box followed by pages of
# text) are rare repeats and would make the memo hold megabytes
_answer_from_short_tail = lru_cache(maxsize=65536)(_answer_from_tail)
_MEMO_TAIL = 512


def _boxed(text: str) -> str | None:
    last = text.rfind("\\boxed")
    last = max(last, text.rfind("\\fbox", last + 1))  # only the part after the last \\boxed
    if last < 0:
        return None
    # only the line holding the last box matters: scan from its start (fast on long texts);
    # final lines repeat a lot across samples, so their parse is memoised
    line_start = text.rfind("\n", 0, last) + 1
    tail = text[line_start:]
    found = (_answer_from_short_tail if len(tail) <= _MEMO_TAIL else _answer_from_tail)(tail)
    if found is not None:
        return found or None
    if line_start == 0:  # the tail was the whole reply: no complete box anywhere
        return None
    boxes = boxes_with_pos(text)  # the last line holds no box (``$\boxed$``): an earlier one
    return (boxes[-1][0] or None) if boxes else None


# ---------------------------------------------------------------- final-answer statements

_STATEMENT_RE = re.compile(
    r"(?:\bfinal\s+answer\b(?:\s+(?:is|would\s+be|will\s+be))?"
    r"|\b(?:the|my)\s+answer\s+(?:is|would\s+be|will\s+be)"
    r"|\bthe\s+correct\s+(?:answer|option|choice)\s+is"
    r"|\banswer\s*(?:\*\*\s*)?[:：]"
    r"|【答案】|最终答案\s*(?:是|为)?|故答案(?:是|为)|答案\s*(?:是|为|[:：])|^\s*答\s*[:：]"
    r"|正确(?:答案|选项)\s*(?:是|为)|(?:故|所以|因此|应)选|答案选)"
    r"[\s*:：#]*(?:is\s*)?",
    re.I | re.M,
)
_END_MARKERS_RE = re.compile(r"<eo[ae]>|</?answer>")
# display / inline formulas; $$ before $, and \[ \] before everything else
# a \( or \[ body never holds another opener of its kind: a loop of unclosed \( stays linear
_MATH_RE = re.compile(
    r"\$\$([^$]+?)\$\$|\\\[((?:\\\\|\\(?!\[)|[^\\])+?)\\\]"
    r"|\\\(((?:\\\\|\\(?!\()|[^\\])+?)\\\)|\$([^$]+?)\$",
    re.S,
)
_SENTENCE_END_RE = re.compile(
    r"(?<![0-9A-Z])\.(?=\s|$)|(?<=[0-9])\.(?=\s+[A-Z]|\s*$)|[。！？!?；;]|\n"
)


def _math_spans(text: str) -> list[tuple[int, int, str]]:
    return [
        (m.start(), m.end(), next(g for g in m.groups() if g is not None))
        for m in _MATH_RE.finditer(text)
    ]


def _first_sentence(text: str) -> str:
    """*text* up to its first sentence end outside formulas."""
    inside = _inside_math(text)
    for match in _SENTENCE_END_RE.finditer(text):
        if inside[match.start()]:
            continue
        if match.start() == 0 and match.group() == "\n":
            continue
        return text[: match.start()]
    return text


def _clean(answer: str) -> str | None:
    answer = _END_MARKERS_RE.sub("", answer).replace("**", "").strip()
    spans = _math_spans(answer)
    if spans:
        outside = answer
        for a, b, _ in reversed(spans):
            outside = outside[:a] + " " + outside[b:]
        words = re.findall(r"[A-Za-z]{2,}|[\u4e00-\u9fff]+", outside)
        if len(words) >= 3:  # a sentence around formulas: the value it states
            return _from_sentence(answer)
        if words:  # "$x=1$ and $y=2$": the formulas together
            answer = ", ".join(s.strip() for _, _, s in spans)
        else:
            answer = _MATH_RE.sub(lambda m: next(g for g in m.groups() if g is not None), answer)
    answer = answer.strip().strip("$").strip()
    answer = re.sub(r"[.。,，;；:：]+$", "", answer).strip()
    return answer or None


def _statement(text: str) -> tuple[str, int] | None:
    lowered = text.lower()
    if (
        "answer" not in lowered
        and "correct" not in lowered
        and "答" not in text
        and "选" not in text
    ):
        return None  # cheap test before the regex: most responses without a box say none
    # the last few markers, each read from a bounded window: a loop of "the answer is below"
    # must not cost a scan of the rest of the reply per marker
    for match in islice(_markers_last_first(text), _STATEMENT_TRIES):
        rest = text[match.end() : match.end() + _STATEMENT_WINDOW]
        stripped = rest.lstrip(" \t*:：")
        if stripped.startswith("\n") or not stripped.strip():
            stripped = stripped.lstrip()  # the answer is on the next line(s)
        if stripped.startswith(("$$", "\\[", "\\(", "$")):
            span = _MATH_RE.match(stripped)
            if span is not None:
                after = _first_sentence(stripped[span.end() :])
                found = _clean(stripped[: span.end()] + after)
                if found:
                    return found, match.start()
        found = _clean(_first_sentence(stripped))
        if found and _cjk_prose(found):
            # 【答案】首先……所以 n=8: prose after the marker, the answer is its last value
            block = _END_MARKERS_RE.split(stripped, maxsplit=1)[0]
            found = _last_math(block) or (found if not _HAS_MATH_RE.search(block) else None)
        if found and len(found) <= 300 and not _NOT_AN_ANSWER_RE.match(found):
            return found, match.start()
    return None


# "the answer is below / as follows": a pointer to the answer, not the answer
_NOT_AN_ANSWER_RE = re.compile(
    r"^(?:(?:given|shown|stated|written)\s+)?(?:below|above|as\s+follows|"
    r"the\s+following|following|here|correct|wrong|incorrect)\b",
    re.I,
)


_STATEMENT_TRIES = 32
_KEYWORDS = ("answer", "correct", "答", "选")  # every statement marker holds one
_KEYWORD_HITS = 256
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _markers_last_first(text: str) -> Iterator[re.Match[str]]:
    """Statement markers, last first. The marker regex runs only in small windows around
    the last keyword hits (found by ``str.rfind``): scanning it over a 200k-character reply
    costs far more than the 50 ms a reply may take."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters lower to two: keep positions
        lowered = text.translate(_ASCII_LOWER)
    last = {kw: lowered.rfind(kw) for kw in _KEYWORDS}
    bound = len(text) + 1  # every match yielded so far starts at or after it
    for _ in range(_KEYWORD_HITS):
        keyword = max(last, key=last.__getitem__)
        hit = last[keyword]
        if hit < 0:
            return
        last[keyword] = lowered.rfind(keyword, 0, hit)
        window = _STATEMENT_RE.finditer(text, max(0, hit - 40), hit + len(keyword) + 60)
        for match in reversed([m for m in window if m.start() < bound]):
            bound = match.start()
            yield match


_STATEMENT_WINDOW = 4000
_CJK_RUN_RE = re.compile(r"[\u4e00-\u9fff]{4,}")
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")


def _cjk_prose(text: str) -> bool:
    """Chinese prose: four CJK characters in a row, or a comma between CJK characters on
    one line (index arithmetic: the regex ``CJK.*[，,].*CJK`` backtracks quadratically)."""
    if _CJK_RUN_RE.search(text):
        return True
    for line in text.split("\n"):
        cjk = [m.start() for m in _CJK_RE.finditer(line)]
        if len(cjk) >= 2:
            comma = max(line.rfind(",", cjk[0], cjk[-1]), line.rfind("，", cjk[0], cjk[-1]))
            if comma > cjk[0]:
                return True
    return False


# ---------------------------------------------------------------- last-resort fallback

_NUMBER_RE = re.compile(r"-?\$?\d[\d,]*(?:\.\d+)?(?:/\d+)?\s*(?:%|\\%|°|\^\\circ)?")
_IS_RE = re.compile(
    r"\b(?:is|are|was|were|equals|be|of|to)\s+(?:about\s+|approximately\s+)?"
    r"|=|≈|为|是"
)
_BOLD_RE = re.compile(r"\*\*(.+?)\*\*", re.S)
_HAS_MATH_RE = re.compile(r"\d|\\\(|\\\[|\$")
_PARA_RE = re.compile(r"\n\s*\n")


# a name whose value a formula states: x, a_1, f(3), |r-s|, \text{Area}; other left-hand
# sides without a top-level + or - (AC, x^3) state a value too
_NAME_RE = re.compile(
    r"^\s*(?:[A-Za-z](?:_\{?\w+\}?)?(?:\([^()=]*\))?|\|[^|=]+\||"
    r"\\(?:text|mathrm)\{[^{}]*\}(?:_\{?\w+\}?)?)\s*$"
)


def _rhs(formula: str) -> str:
    """The value a formula states: ``x = 9`` → ``9``; ``9 \\times 10 = 90`` → ``90``;
    ``x=-1, x=2`` → ``-1, 2``; an equation of expressions (``x^2 + y^2 = 13``) and a function
    definition (``f(n) = 2n``) stay whole."""
    parts = [
        p for p in re.split(r",\s*(?:\\text\{\s*and\s*\}|and)?\s*|\\quad", formula) if p.strip()
    ]
    if len(parts) > 1 and all("=" in p for p in parts):
        return ", ".join(_rhs(p) for p in parts)
    sides = re.split(r"=|\\approx|≈", formula)
    if len(sides) == 1:
        return formula.strip()
    lhs = sides[0].strip()
    function = re.match(r"^[A-Za-z]\(([a-z])\)$", lhs)
    if (
        function
        and len(sides) == 2
        and re.search(rf"(?<![\\A-Za-z]){function.group(1)}(?![A-Za-z])", sides[1])
    ):
        return formula.strip()  # f(n) = n: a function is the answer, not its value n
    if (
        _NAME_RE.match(lhs)
        or not re.search(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", "", lhs))
        or not re.search(r"(?<=.)[+-]", lhs)
    ):
        return sides[-1].strip()  # AC = 25, x^3 = 12, 9 \times 10 = 90
    return formula.strip()  # x^2 + y^2 = 13: the equation is the answer


def _inside_math(text: str) -> bytearray:
    """1 at every position of *text* inside a formula (sentence ends there do not count)."""
    mask = bytearray(len(text))
    for a, b, _ in _math_spans(text):
        mask[a:b] = b"\x01" * (b - a)
    return mask


_CUT_CHAR_RE = re.compile(r"[.。！？!?；;\n]")


def _is_sentence_end(text: str, i: int) -> bool:
    """The rules of :data:`_SENTENCE_END_RE` at one candidate character (faster in a loop)."""
    if text[i] != ".":
        return True
    prev, after = text[i - 1 : i], text[i + 1 : i + 2]
    if prev.isdigit():  # 3.5 is a number; "is 15. I hope" and a final "15." end sentences
        following = _NEXT_CHAR_RE.match(text, i + 1).group(1)  # type: ignore[union-attr]
        return not following or (after.isspace() and following.isupper())
    return not prev.isupper() and (not after or after.isspace())


_NEXT_CHAR_RE = re.compile(r"\s*(\S?)")


def _sentences(paragraph: str) -> list[str]:
    inside = _inside_math(paragraph)
    cuts = [
        m.end()
        for m in _CUT_CHAR_RE.finditer(paragraph)
        if not inside[m.start()] and _is_sentence_end(paragraph, m.start())
    ]
    out, start = [], 0
    for cut in cuts + [len(paragraph)]:
        if paragraph[start:cut].strip():
            out.append(paragraph[start:cut])
        start = cut
    return out


def _from_sentence(sentence: str, skip_letters: bool = False) -> str | None:
    """The value a sentence states: its last formula with a number, bold phrase or number
    (by position), or failing those its last formula."""
    spans = [
        (a, b, f) for a, b, f in _math_spans(sentence) if f.strip() and f.strip() != "\\boxed{}"
    ]
    items: list[tuple[int, str]] = [(a, _rhs(f)) for a, b, f in spans if re.search(r"\d", _rhs(f))]
    named = [_rhs(f) for _, _, f in spans if re.match(r"^\s*([A-Za-z])\s*=", f)]
    if (
        len(named) > 1
        and len(
            {
                re.match(r"^\s*([A-Za-z])", f).group(1)  # type: ignore[union-attr]
                for _, _, f in spans
                if re.match(r"^\s*[A-Za-z]\s*=", f)
            }
        )
        == 1
    ):
        return ", ".join(named)  # "\(n = 5\) and \(n = 15\)": every value of one unknown
    for match in _BOLD_RE.finditer(sentence):
        numbers = _NUMBER_RE.findall(match.group(1))
        if numbers:
            items.append((match.start(), numbers[-1].strip()))
    masked = sentence
    for a, b, _ in reversed(spans):
        masked = masked[:a] + " " * (b - a) + masked[b:]
    bold = _bold_spans(sentence)
    numbers = [
        m for m in _NUMBER_RE.finditer(masked) if not any(x <= m.start() < y for x, y in bold)
    ]
    verbs = list(_IS_RE.finditer(masked))
    after_verb = [m for m in numbers if verbs and m.start() >= verbs[-1].end()]
    for m in after_verb[:1] or numbers[-1:]:
        items.append((m.start(), m.group().strip()))
    if items:
        return max(items, key=lambda item: item[0])[1] or None
    formulas = [_rhs(f) for _, _, f in spans]
    if skip_letters:  # a bare letter ("for all \\(x\\)") names a variable, it states no value
        formulas = [f for f in formulas if not _LETTER_RE.fullmatch(f)]
    return formulas[-1] or None if formulas else None


_LETTER_RE = re.compile(r"\s*[A-Za-z]\s*")


def _bold_spans(sentence: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _BOLD_RE.finditer(sentence)]


def _fallback(text: str) -> tuple[str | None, str | None]:
    paragraphs = [p for p in _PARA_RE.split(_END_MARKERS_RE.sub("", text)) if p.strip()]
    for paragraph in reversed(paragraphs[-3:]):
        if not _HAS_MATH_RE.search(paragraph):
            continue
        # the final sentences are at its end: look at the last lines first
        found = _last_math(_tail(paragraph, 600), True) or _last_math(_tail(paragraph, 3000), True)
        if found:
            return found, _tail(paragraphs[-1])
        break
    return None, None


def _last_math(text: str, letters_last: bool = False) -> str | None:
    """The value of the last sentence of *text* that has math in it, or None; with
    *letters_last*, a sentence whose only formulas are bare letters counts only when no
    sentence states more."""
    sentences = [s for s in reversed(_sentences(text)) if _HAS_MATH_RE.search(s)]
    for skip_letters in (True, False) if letters_last else (False,):
        for sentence in sentences:
            found = _from_sentence(sentence, skip_letters)
            if found:
                return found.replace("\\$", "").lstrip("$").rstrip(".").strip() or None
    return None


def _tail(paragraph: str, limit: int = 1200) -> str:
    """The last paragraph, cut to its last *limit* characters at a line start."""
    paragraph = paragraph.strip()
    if len(paragraph) <= limit:
        return paragraph
    cut = paragraph.find("\n", len(paragraph) - limit)
    return paragraph[cut + 1 :] if cut >= 0 else paragraph[-limit:]


# ---------------------------------------------------------------- public

# a statement followed by more than this many characters is not treated as the final word
_STATEMENT_TAIL = 800


def extract_answer(text: str | None) -> Extraction:
    """The final answer of a model response and how it was found (see the module doc)."""
    text = optional_answer_text(text, "text")  # a bare number is a reply too
    if not text or text.isspace():
        return Extraction(None, Found.NONE, None)
    if cut_in_box(text):  # "so the area is \\boxed{4": the answer box never closed
        return Extraction(None, Found.TRUNCATED, None)
    boxed = _boxed(text)
    if boxed:
        return Extraction(boxed, Found.BOXED, boxed)
    stated = _statement(text)
    if stated:
        answer, where = stated
        if len(text) - where > _STATEMENT_TAIL:
            # "so the answer is 12. Let me double-check … [much more]": the statement may not
            # be the final word — keep its answer, but let a mismatch go to the judge
            return Extraction(answer, Found.FALLBACK, _tail(_PARA_RE.split(text.strip())[-1]))
        return Extraction(answer, Found.STATEMENT, answer)
    guess, paragraph = _fallback(text)
    if guess:
        return Extraction(guess, Found.FALLBACK, paragraph)
    return Extraction(None, Found.NONE, _tail(_PARA_RE.split(text.strip())[-1]))


def extract_reply(
    text: str | None, *, reasoning: bool = False, tags: ThinkTags = DEFAULT_THINK_TAGS
) -> Extraction:
    """The final answer of a reply that may hold a reasoning trace: only the part after the
    last closing think tag is read; an unfinished thought is ``truncated`` (no answer, no
    candidate for the judge). *reasoning* declares a model that always thinks first (a
    reply without a closing tag is then truncated too); see :mod:`.reasoning`."""
    parts = split_reply(optional_answer_text(text, "text"), reasoning=reasoning, tags=tags)
    if parts.truncated:
        return Extraction(None, Found.TRUNCATED, None)
    return extract_answer(parts.answer)


def extract_final_answer(text: str | None) -> str | None:
    """The final answer of a model response (boxed, stated or guessed), or None."""
    return extract_answer(text).answer
