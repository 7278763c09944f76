"""Canonical forms of extracted answers and cheap classifiers of answer kinds (pure core).

:func:`canonical_answer` is a cheap, *certainly answer-preserving* normal form used to
deduplicate answers before any expensive check: whitespace, ``$``, ``\\left``/``\\right``,
spacing macros, ``\\displaystyle``, ``\\dfrac``/``\\tfrac`` → ``\\frac``, ``\\frac12`` →
``\\frac{1}{2}``, ``x^{2}`` → ``x^2``, ``\\text{271}`` → ``271`` (numbers only), empty
``\\text{}``, a trailing period, other names of one symbol (``\\lt`` → ``<``, ``\\geq`` →
``\\ge``, ``\\varnothing`` → ``\\emptyset``). Equal canonical forms are the same answer;
different forms may still be equivalent (that is what :mod:`.rules` and the judge decide).

The classifiers read a canonical form as a plain rational (:func:`as_rational`), a set of
choice letters (:func:`as_choice`), text (:func:`as_text`), prose outside ``\\text{}``
(:func:`has_bare_word`) or plain math (:func:`is_plain_math`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from gpassk_oc.core.answers.arguments import answer_text

# unicode writings of LaTeX (only tried on text that is not pure ASCII)
_UNICODE_SUBS = (
    (re.compile("∞"), r"\\infty"),
    (re.compile("∪"), r"\\cup"),
    (re.compile("π"), r"\\pi "),
    (re.compile(r"根号\s*(\d+)"), r"\\sqrt{\1}"),  # 根号3 is √3
    (re.compile(r"√\s*(\d+)"), r"\\sqrt{\1}"),
    (re.compile("√"), r"\\sqrt"),
    (re.compile("−"), "-"),
    (re.compile("≤"), r"\\le "),
    (re.compile("≥"), r"\\ge "),
    (re.compile("×"), r"\\times "),
    (re.compile("＞"), ">"),
    (re.compile("＜"), "<"),
    (re.compile("∀"), r"\\forall "),
)
# LaTeX whose backslash escape was read by a JSON/Python string: "\frac" arrives as a form
# feed + "rac", "\binom" as a backspace + "inom", "\text" as a tab + "ext"; and commands
# escaped twice ("\\\\frac" for "\\frac") — repaired before anything else
_ESCAPE_SUBS = (
    (re.compile("\x0c"), r"\\f"),
    (re.compile("\x08"), r"\\b"),
    (re.compile("\x07"), r"\\a"),
    (re.compile("\t(?=ext\\{|(?:imes|heta|an|au)(?![a-zA-Z]))"), r"\\t"),
    (re.compile("\r(?=(?:ight|ho)(?![a-zA-Z]))"), r"\\r"),
    (
        re.compile(
            r"(?<!\\)\\\\(?=(?:frac|dfrac|sqrt|pi|sin|cos|tan|ln|log|text|left|right|cdot|times|"
            r"infty|bigg|big)(?![a-zA-Z]))"
        ),
        r"\\",
    ),
)
# HTML exponents and subscripts, ^(…) for ^{…}, a function name in \text{}, a one-letter
# \mathrm{N}, a period before a closing bracket ("\sqrt{2}.]")
_MARKUP_SUBS = (
    (re.compile(r"<sup>([^<>]*)</sup>"), r"^{\1}"),
    (re.compile(r"<sub>([^<>]*)</sub>"), r"_{\1}"),
    (re.compile(r"\^\(([^()]*)\)"), r"^{\1}"),
    (
        re.compile(r"\\(?:text|mathrm|operatorname)\{(sin|cos|tan|cot|sec|csc|ln|log|exp)\}"),
        r"\\\1 ",
    ),
    (re.compile(r"(?<=[}a-zA-Z])\.(?=\s*(?:\\right)?[)\]])"), ""),
)
_UPRIGHT_LETTER_RE = re.compile(r"\\(?:mathrm|mathit)\{~?([A-Za-z])\}")
_SUBSCRIPT_RE = re.compile(r"_(?:\{[^{}]*\}|\w)")
_DIGIT_RE = re.compile(r"\d")
_CANON_SUBS = (
    # spacing macros, but not the second backslash of a row break "\\ "
    (re.compile(r"\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\displaystyle|(?<!\\)\\[!,;: ]|~"), ""),
    (re.compile(r"(?<!\\)\$"), ""),  # math delimiters anywhere ("-1$,$2"); \$ is a dollar
    (re.compile(r"\^\{\s*\\circ\s*\}"), r"^\\circ"),
    (re.compile(r"\\[bB]igg?[lr]?(?=[()\[\]|])"), ""),  # \bigg( → (
    (re.compile(r"(?<=[,(\[])\s*\+\s*\\infty"), r"\\infty"),  # (3, +\infty) is (3, \infty)
    (re.compile(r"\\[dt](frac|binom)(?![a-zA-Z])"), r"\\\1"),
    (re.compile(r"\\(sin|cos|tan)\^\{-1\}"), r"\\arc\1"),  # \tan^{-1} is \arctan
    (re.compile(r"\\frac\s*(\d)\s*(\d)"), r"\\frac{\1}{\2}"),
    (re.compile(r"([\^_])\{\s*([0-9a-zA-Z])\s*\}(?![0-9])"), r"\1\2"),  # x^{2} → x^2, not _{2}8
    (re.compile(r"\\text\{\s*\}"), ""),
    (re.compile(r"\\([lg]e)(?:q|qslant|slant)(?![a-zA-Z])"), r"\\\1"),  # \geq, \geqslant are \ge
    # other names of one symbol (before spaces go: "\gt k" must not become "\gtk")
    (re.compile(r"\\lt(?![a-zA-Z])"), "<"),
    (re.compile(r"\\gt(?![a-zA-Z])"), ">"),
    (re.compile(r"\\neq(?![a-zA-Z])"), r"\\ne"),
    (re.compile(r"\\varnothing(?![a-zA-Z])"), r"\\emptyset"),
    (re.compile(r"\{,\}"), ","),  # 14{,}916: a comma without math spacing is a comma
    (re.compile(r"\s+"), ""),
)


# a whole answer \text{271} is the number 271; \text{word} keeps its wrapper (math-verify
# reads a bare word as a product of symbols: "obj0a" == "object0" == 0)
_WHOLE_TEXT_RE = re.compile(r"^\\(?:text|textbf|textrm|mathrm|mbox)\{([-+]?\d+(?:\.\d+)?)\}$")


_EDGE_QUAD_RE = re.compile(r"^(?:\\q?quad)+|(?:\\q?quad)+$")


def _one_group(text: str) -> bool:
    """True when *text* is one brace group: ``{a}`` yes, ``{1}{2}`` no."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "{") - (ch == "}")
        if depth == 0 and i < len(text) - 1:
            return False
    return depth == 0


@lru_cache(maxsize=1 << 16)  # pure: answers repeat across questions and runs
def canonical_answer(answer: str | None) -> str:
    """Cheap normal form for deduplication; equal forms are certainly the same answer."""
    if answer is None:
        return ""
    text = answer_text(answer, "answer")  # a number is accepted as its writing
    if not text.isprintable():  # before strip(): a form feed is whitespace to it
        for pattern, repl in _ESCAPE_SUBS[:-1]:
            text = pattern.sub(repl, text)
    text = text.strip()
    if "\\\\" in text and "\\begin" not in text:  # (a row break inside an environment stays)
        text = _ESCAPE_SUBS[-1][0].sub(_ESCAPE_SUBS[-1][1], text)
    if not text.isascii():
        for pattern, repl in _UNICODE_SUBS:
            text = pattern.sub(repl, text)
    if "<su" in text or "^(" in text or "{" in text or "." in text:
        for pattern, repl in _MARKUP_SUBS:
            text = pattern.sub(repl, text)
    if "\\math" in text and not _DIGIT_RE.search(_SUBSCRIPT_RE.sub("", text)):
        # \frac{\mathrm{N}_1}{\mathrm{~N}}: upright letters name quantities; beside a number
        # (2.6\mathrm{m}) they are units and stay
        text = _UPRIGHT_LETTER_RE.sub(r"\1", text)
    for pattern, repl in _CANON_SUBS:
        text = pattern.sub(repl, text)
    previous = None
    while text != previous:  # "$5$." → "5", "\\text{271}" → "271"
        previous = text
        text = text.strip("$").rstrip(".。")
        if "quad" in text:
            text = _EDGE_QUAD_RE.sub("", text)
        if text.startswith("{") and text.endswith("}") and _one_group(text):
            text = text[1:-1]  # {\frac{1}{2}} is \frac{1}{2}
        if (
            text.startswith("\\[")
            and text.endswith("\\]")
            or text.startswith("\\(")
            and text.endswith("\\)")
        ):
            text = text[2:-2]  # display / inline math delimiters around a whole answer
        if text.startswith("\\boxed{") and text.endswith("}") and _one_group(text[6:]):
            text = text[7:-1]  # a reference answer written boxed
        whole = _WHOLE_TEXT_RE.match(text)
        if whole:
            text = whole.group(1)
    return text


_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
_RATIONAL_RES = (
    re.compile(rf"^({_NUM})$"),
    re.compile(rf"^([+-]?)\\frac\{{({_NUM})\}}\{{({_NUM})\}}$"),
    re.compile(rf"^({_NUM})/({_NUM})$"),
)
# option letters A–G, or the circled numbers ①–⑩ Chinese problems give their propositions
_CHOICE_RE = re.compile(
    r"^(?:\\text\{)?\(?([A-G](?:[,，、]?[A-G])*|[①-⑩](?:[,，、]?[①-⑩])*)\)?\}?$"
)


def as_rational(canonical: str) -> Fraction | None:
    """The exact value of a canonical answer that is a plain rational number, else None."""
    if len(canonical) > 40:
        return None
    try:
        m = _RATIONAL_RES[0].match(canonical)
        if m:
            return Fraction(m.group(1))
        m = _RATIONAL_RES[1].match(canonical)
        if m:
            value = Fraction(m.group(2)) / Fraction(m.group(3))
            return -value if m.group(1) == "-" else value
        m = _RATIONAL_RES[2].match(canonical)
        if m:
            return Fraction(m.group(1)) / Fraction(m.group(2))
    except (ValueError, ZeroDivisionError):
        return None
    if "\\overline" in canonical or "\\dot" in canonical:
        return _repeating(canonical)
    return None


# 0.1\overline{6}, 0.\dot{3}, 0.\dot{1}\dot{2} (a dot over the first and last repeated digit)
_OVERLINE_RE = re.compile(r"^([+-]?)(\d*)\.(\d*)\\overline\{?(\d+)\}?$")
_DOTS_RE = re.compile(r"^([+-]?)(\d*)\.(\d*)\\dot\{?(\d)\}?(?:(\d*)\\dot\{?(\d)\}?)?$")


def _repeating(canonical: str) -> Fraction | None:
    """A repeating decimal as the fraction it denotes (0.1\\overline{6} is 1/6)."""
    m = _OVERLINE_RE.match(canonical)
    if m:
        sign, whole, fixed, cycle = m.groups()
    else:
        d = _DOTS_RE.match(canonical)
        if d is None:
            return None
        sign, whole, fixed = d.group(1), d.group(2), d.group(3)
        cycle = d.group(4) + (d.group(5) or "") + (d.group(6) or "")
    head = Fraction(int(whole or "0")) + (Fraction(int(fixed), 10 ** len(fixed)) if fixed else 0)
    tail = Fraction(int(cycle), (10 ** len(cycle) - 1) * 10 ** len(fixed))
    return -(head + tail) if sign == "-" else head + tail


def as_choice(canonical: str) -> frozenset[str] | None:
    """The set of option letters of a multiple-choice answer (``A``, ``BD``, ``A,C``, ``①③``),
    else None."""
    m = _CHOICE_RE.match(canonical)
    if not m:
        return None
    return frozenset(ch for ch in m.group(1) if "A" <= ch <= "G" or "①" <= ch <= "⑩")


_TEXT_WRAP_RE = re.compile(r"^\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}$")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_WORDS_RE = re.compile(r"^[A-Za-z]{2,}(?:[ '-][A-Za-z]+)*$")


def as_text(canonical: str) -> str | None:
    """Lower-cased text of a text answer, else None: a ``\\text{...}`` wrapper, an answer with
    CJK characters and no LaTeX, or a bare word of two or more letters (``Tuesday``)."""
    m = _TEXT_WRAP_RE.match(canonical)
    if m:
        return m.group(1).lower()
    if _CJK_RE.search(canonical) and "\\" not in canonical and "$" not in canonical:
        return canonical.lower()
    if _WORDS_RE.match(canonical):
        return canonical.lower()
    return None


def split_top(text: str) -> list[str]:
    """*text* split at the commas outside brackets and braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


_TEXT_GROUP_RE = re.compile(
    r"\\(?:text|textbf|textrm|mathrm|mbox|operatorname)\{[^{}]*\}|"
    r"\\[a-zA-Z]+\{[a-zA-Z*]*\}"
)
_BARE_WORD_RE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")


def has_bare_word(canonical: str) -> bool:
    """Prose outside ``\\text{}`` (three or more letters in a row that are no command)."""
    return bool(_BARE_WORD_RE.search(_TEXT_GROUP_RE.sub(" ", canonical)))


# "plain math": no letters outside these commands, so math-verify sees the whole string
_PLAIN_COMMANDS = re.compile(
    r"\\(?:(?:frac|binom|sqrt|pi|infty|cup|cap|cdot|times|div|pm|le|ge|leq|geq|lt|gt|circ|"
    r"left|right|in|emptyset|varnothing)(?![a-zA-Z])|mathbb\{R\}|\{|\}|%)"
)
_PLAIN_RE = re.compile(r"^[0-9+\-*/^_().,\[\]{}<>=|%°π√∞∪! ]*$")


def is_plain_math(canonical: str) -> bool:
    """True when *canonical* has no letters besides whitelisted math commands (math-verify then
    sees the whole string, never a fragment of a sentence)."""
    stripped = _PLAIN_COMMANDS.sub(" ", canonical).replace("\\", "")
    return bool(stripped.strip()) and bool(_PLAIN_RE.match(stripped))
