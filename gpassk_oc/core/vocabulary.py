"""The words grading writes and reads, as typed enums (pure core; the one owner).

Every value is the exact string a results file has always carried, so a member compares
equal to its string (``Source.RULE == "rule"``), serialises to it (``json.dumps``) and
formats as it (``f"{Found.BOXED}"`` is ``boxed`` on every Python version). Strings from
outside (evaluator kwargs, results files) are turned into members at the boundary with
:meth:`Word.parse`, which fails with one line naming the field and the allowed values.

* :class:`CheckMode` — how samples are graded: rules, judge, or rules then judge (cascade).
* :class:`Decision` — what the rule stage decides for one sample.
* :class:`Source` — who settled a sample's verdict (the results file's ``source``).
* :class:`Found` — how a reply's answer was found (the results file's ``found``).
* :data:`COUNT_KEYS` / :func:`found_key` — the grading accounting keys; the ``found_*``
  keys are spelled here once, never built from a :class:`Found` at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import TypeVar

__all__ = [
    "COUNT_KEYS",
    "FOUND_KEYS",
    "CheckMode",
    "Decision",
    "Found",
    "Source",
    "Word",
    "found_key",
    "plain",
]

_W = TypeVar("_W", bound="Word")


class Word(str, Enum):
    """A str-valued enum whose ``str()``, ``format()`` and ``repr()`` are its value's (Python
    3.12 changed ``format()`` of mixed-in enums to the member name; results files and the
    one-line messages, which quote values with ``!r``, must not change)."""

    def __repr__(self) -> str:
        return repr(self.value)

    # Enum hashes the member name: a member and its string must be the same key in a dict
    # or set ({"none": 1}[Found.NONE]). The member's text is its value, so str's own (C)
    # hash is hash(value): samples' words are hashed per sample, a Python __hash__ shows
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """Every allowed string, in declaration order."""
        return tuple(str(m.value) for m in cls)

    @classmethod
    def parse(cls: type[_W], value: object, where: str, error: type[Exception] = ValueError) -> _W:
        """*value* as a member, or *error*: one line naming *where* and what is allowed."""
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(repr(v) for v in cls.values())
            raise error(f"{where}: {value!r} is not one of {allowed}") from None

    @classmethod
    def recorded(
        cls: type[_W], value: object, where: str, error: type[Exception] = ValueError
    ) -> _W | None:
        """A recorded field that may be absent: None unless *value* is a string, which must
        be a member (:meth:`parse`)."""
        return cls.parse(value, where, error) if isinstance(value, str) else None


class CheckMode(Word):
    """How samples are graded (see :mod:`gpassk_oc.core.judging.grading`)."""

    RULES = "rules"
    JUDGE = "judge"
    CASCADE = "cascade"


class Decision(Word):
    """The rule stage's decision for one sample (:func:`~.judging.decisions.decide`)."""

    CORRECT = "correct"
    WRONG = "wrong"
    UNDECIDED = "undecided"  # rules mode: scored wrong, marked rule_undecided
    NO_ANSWER = "no_answer"  # empty or truncated reply: wrong in every mode
    JUDGE = "judge"  # sent to the judge


class Source(Word):
    """Who settled a sample's verdict; ``rule_undecided`` only in rules mode."""

    RULE = "rule"
    RULE_UNDECIDED = "rule_undecided"
    NO_ANSWER = "no_answer"
    CACHE = "cache"
    JUDGE = "judge"
    UNJUDGED = "unjudged"


class Found(Word):
    """How a reply's answer was found (:mod:`gpassk_oc.core.answers.extraction`)."""

    BOXED = "boxed"
    STATEMENT = "statement"
    FALLBACK = "fallback"
    NONE = "none"
    TRUNCATED = "truncated"


def plain(rows: Sequence[Sequence[str]] | None) -> list[list[str]] | None:
    """Per-question rows of words as plain strings, for files and JSON-only writers (a
    :class:`Word` is a str subclass; writers such as mmengine's may want exactly str)."""
    # str.__str__ gives the plain str of a Word in C (Word.__str__ is Python: slow per sample)
    return None if rows is None else [list(map(str.__str__, row)) for row in rows]


#: the accounting key counting the samples whose answer was found each way
FOUND_KEYS: dict[Found, str] = {
    Found.BOXED: "found_boxed",
    Found.STATEMENT: "found_statement",
    Found.FALLBACK: "found_fallback",
    Found.NONE: "found_none",
    Found.TRUNCATED: "found_truncated",
}


def found_key(how: Found | str) -> str:
    """The accounting key for answers found *how* (ValueError for anything else)."""
    return FOUND_KEYS[Found(how)]


#: every key of the grading accounting, in the order the results file writes them (their
#: meaning is documented in :mod:`gpassk_oc.core.judging.grading`)
COUNT_KEYS: tuple[str, ...] = (
    "samples",
    "rule_decided",
    "no_answer",
    "rule_undecided",
    "cache_hits",
    "judged_samples",
    "unjudged",
    "unique_pairs",
    "cache_hit_pairs",
    "judged",
    "unjudged_pairs",
    "judge_calls",
    "rule_checks",
    "rule_mv_calls",
    "rule_timeouts",
    *FOUND_KEYS.values(),
    "judge_input_chars",
    "judge_input_max",
)
