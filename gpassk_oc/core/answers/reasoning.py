"""Split a reasoning model's reply into what it thought and what it answered (pure core).

Reasoning models (QwQ, DeepSeek-R1 and its distills, o1-style templates) write a chain of
thought between think tags and then the answer. Only what follows the **last closing tag**
is the answer; a ``\\boxed{}`` inside the thinking is a draft, never the answer.

What real runs produce, and how :func:`split_reply` reads it:

* ``<think>…</think>answer`` — the answer is ``answer``.
* OpenCompass's ``OpenAISDK`` joins ``reasoning_content + '</think>' + content``, and the
  DeepSeek-R1 distills' chat template puts the opening tag into the prompt: a closing tag
  without an opening one — the answer still follows the closing tag.
* An opening tag after the last closing tag (``<think>`` never closed): the budget ran out
  while thinking — *truncated*, for any model.
* No tag at all: the whole reply is the answer for a model not declared reasoning; for a
  declared reasoning model it is thinking cut before its closing tag (OpenAISDK returns the
  bare ``reasoning_content`` when ``content`` is empty) — *truncated*.

Whether a model is a reasoning model is *detected* by default (``reasoning='auto'``):
:func:`reading_rule` looks at all replies of one evaluation — if any closes a think tag,
the model thinks and a reply without the closing tag is truncated (``'thinking'``); if
none does, every reply is read whole (``'whole'``). ``True``/``False`` force either rule.

A truncated reply has no answer: the grader scores it wrong without asking the judge
(``found='truncated'``). An empty or whitespace-only reply is empty, not truncated.
Everything here is a handful of ``str.find`` calls: linear in the reply's length.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_THINK_TAGS",
    "JUDGE_INPUT_LIMIT",
    "REASONING_SETTINGS",
    "ReadingRule",
    "ReplyParts",
    "ThinkTags",
    "check_reasoning_setting",
    "judge_excerpt",
    "no_closing_tag_warning",
    "reading_rule",
    "split_reply",
]


@dataclass(frozen=True)
class ThinkTags:
    """The markers around a model's thinking (``<think>``/``</think>`` by default).

    Raises ValueError (one line) for an empty, non-string or identical pair: with identical
    markers an opening tag cannot be told from a closing one.
    """

    open: str = "<think>"
    close: str = "</think>"

    def __post_init__(self) -> None:
        for name, value in (("opening", self.open), ("closing", self.close)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(
                    f"think_tags: the {name} tag must be a non-empty string, got {value!r}"
                )
        if self.open == self.close:
            raise ValueError(
                f"think_tags: opening and closing tags must differ, both are {self.open!r}"
            )

    @classmethod
    def coerce(cls, value: Any, where: str = "think_tags") -> ThinkTags:
        """A :class:`ThinkTags` from itself or an ``(open, close)`` pair (configs hold lists
        or tuples); a one-line ValueError naming *where* otherwise."""
        if isinstance(value, ThinkTags):
            return value
        if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
            raise ValueError(
                f"{where}: need an (opening, closing) pair of strings such as "
                f"('<think>', '</think>'), got {value!r}"
            )
        try:
            return cls(value[0], value[1])
        except ValueError as exc:
            raise ValueError(str(exc).replace("think_tags", where, 1)) from None


DEFAULT_THINK_TAGS = ThinkTags()


#: what ``reasoning`` may be set to: detect from the replies, or force either reading
REASONING_SETTINGS: tuple[str | bool, ...] = ("auto", True, False)
#: the two reading rules (``run.reasoning.applied`` in the results file)
THINKING, WHOLE = "thinking", "whole"


def check_reasoning_setting(value: Any, where: str = "reasoning") -> bool | str:
    """*value* if it is ``'auto'``, ``True`` or ``False``; a one-line ValueError naming
    *where* otherwise (``'true'``, ``1`` or ``None`` are refused rather than guessed)."""
    if value == "auto" and isinstance(value, str):
        return "auto"
    if isinstance(value, bool):
        return value
    raise ValueError(f"{where}: need 'auto', True or False, got {value!r}")


@dataclass(frozen=True)
class ReadingRule:
    """How one evaluation's replies were read, and why (``run.reasoning`` of the results).

    ``setting``: what was asked (``'auto'``, ``True``, ``False``); ``applied``:
    ``'thinking'`` (a reply without a closing think tag is truncated) or ``'whole'`` (a
    reply without tags is the answer); ``why``: one sentence with the counts behind it.
    """

    setting: bool | str
    applied: str
    why: str

    @property
    def reasoning(self) -> bool:
        """The ``reasoning`` flag of :func:`split_reply` that this rule stands for."""
        return self.applied == THINKING

    def to_json(self) -> dict[str, Any]:
        return {"setting": self.setting, "applied": self.applied, "why": self.why}

    @classmethod
    def from_json(cls, value: Any, where: str = "reasoning") -> ReadingRule | None:
        """The rule a results file recorded (None when it recorded none); a one-line
        ValueError naming *where* and the field otherwise."""
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise ValueError(f"{where}: need an object with setting, applied and why")
        setting, applied, why = value.get("setting"), value.get("applied"), value.get("why")
        if setting != "auto" and not isinstance(setting, bool):
            raise ValueError(f"{where}.setting: need 'auto', true or false, got {setting!r}")
        if applied not in (THINKING, WHOLE):
            raise ValueError(f"{where}.applied: need 'thinking' or 'whole', got {applied!r}")
        if not isinstance(why, str):
            raise ValueError(f"{where}.why: need a string, got {why!r}")
        return cls(setting, applied, why)


def reading_rule(
    replies: Iterable[str | None],
    setting: bool | str = "auto",
    tags: ThinkTags = DEFAULT_THINK_TAGS,
) -> ReadingRule:
    """The reading rule for all *replies* of one evaluation (every replica of every question).

    ``setting='auto'``: if any reply closes a think tag the model thinks (``'thinking'``),
    else replies are read whole (``'whole'``); ``True``/``False`` force ``'thinking'`` /
    ``'whole'``. Whatever the rule, a reply is read after its last closing tag, and one
    whose last opening tag never closed is truncated (:func:`split_reply`). Empty replies
    count for nothing. Pure: one pass of ``str.find`` over the replies.
    """
    setting = check_reasoning_setting(setting)
    filled = closed = opened = 0
    for reply in replies:
        if not reply or not reply.strip():
            continue
        filled += 1
        if tags.close in reply:
            closed += 1
        elif tags.open in reply:
            opened += 1
    counts = f"{closed} of {filled} non-empty replies close {tags.close}"
    if opened:
        counts += f"; {opened} open {tags.open} without closing it (truncated either way)"
    if setting is True:
        return ReadingRule(True, THINKING, f"reasoning=True was set ({counts})")
    if setting is False:
        return ReadingRule(False, WHOLE, f"reasoning=False was set ({counts})")
    if closed:
        return ReadingRule("auto", THINKING, counts)
    return ReadingRule("auto", WHOLE, counts if filled else "no non-empty reply")


@dataclass(frozen=True)
class ReplyParts:
    """One reply split at its last closing think tag.

    ``answer`` is the text after the last closing tag (the whole reply when it has no tags
    and the model is not declared reasoning; ``''`` when truncated). ``truncated``: the
    thinking never closed. ``thinking_chars`` / ``answer_chars``: sizes of the two parts
    (a truncated reply is all thinking).
    """

    answer: str
    truncated: bool
    thinking_chars: int
    answer_chars: int


def split_reply(
    text: str | None, *, reasoning: bool, tags: ThinkTags = DEFAULT_THINK_TAGS
) -> ReplyParts:
    """Split *text* into thinking and answer (see the module docstring for the cases)."""
    text = text or ""
    if not text.strip():
        return ReplyParts(text, False, 0, len(text))
    close = text.rfind(tags.close)
    if close >= 0:
        start = close + len(tags.close)
        if text.find(tags.open, start) >= 0:  # a new thought opened after the last close
            return ReplyParts("", True, len(text), 0)
        return ReplyParts(text[start:], False, start, len(text) - start)
    if reasoning or text.find(tags.open) >= 0:
        return ReplyParts("", True, len(text), 0)
    return ReplyParts(text, False, 0, len(text))


def no_closing_tag_warning(
    replies: Iterable[str | None], *, reasoning: bool, tags: ThinkTags = DEFAULT_THINK_TAGS
) -> str | None:
    """One warning line when *reasoning* is set and not one non-empty reply holds the
    closing tag, else None.

    Under ``reasoning=True`` such a reply is a thought cut before its closing tag, so the
    whole run scores 0 — almost always a wrong setting rather than a model that never once
    finished thinking: an OpenAI o-series model (its reasoning is hidden, the reply is only
    the answer), a server that keeps the reasoning where OpenAISDK does not read it, or
    other think tags. The line names the setting and the likely fixes.
    """
    if not reasoning:
        return None
    filled = 0
    for reply in replies:
        if reply and reply.strip():
            if tags.close in reply:
                return None
            filled += 1
    if not filled:
        return None  # all empty: nothing says the setting is wrong
    return (
        f"gpassk_oc: reasoning=True but none of the {filled} non-empty replies contains the "
        f"closing think tag {tags.close!r}, so every one is scored as truncated (0). If this "
        "model's replies carry no think tags (an OpenAI o-series model, or a server that keeps "
        "its reasoning where OpenAISDK does not read it), set reasoning=False for it (the "
        "api_models entry or the template's `reasoning`); if it writes other markers, set "
        "think_tags to them."
    )


#: characters of a reply the judge is shown at most (its end is kept)
JUDGE_INPUT_LIMIT = 4000


def judge_excerpt(text: str, limit: int = JUDGE_INPUT_LIMIT) -> str:
    """*text* bounded to its last *limit* characters, saying in the text how much was cut
    (the judge must know it sees an excerpt, not the whole reply)."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    return f"[… the first {cut} characters of the reply are not shown …]\n{text[cut:]}"
