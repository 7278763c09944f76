"""The checks of judge settings, one set for every door they come in by (pure core).

:class:`~.judge.JudgeConfig` runs them in ``__post_init__``, the evaluator's
``judge=dict(...)`` reaches them through it (:func:`gpassk_oc.evaluators.validate_judge`),
and the config generator runs the same functions on ``eval_urls`` / ``eval_model_name`` /
``eval_prompt`` (:mod:`gpassk_oc.configgen.checks`). Each check takes ``(where, value)``,
returns the normalised value and raises :class:`JudgeSettingError` — a ValueError whose
text is one line, ``<where>: <problem>`` — so each door only chooses the field's name.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "PROMPT_NAMES",
    "JudgeSettingError",
    "count",
    "model_name",
    "optional_text",
    "prompt_name",
    "seconds",
    "urls",
]

#: prompt families (``JudgeConfig.prompt``); 'auto' resolves to one of the others
PROMPT_NAMES = ("auto", "opencompass", "gpassk", "en", "cn")


class JudgeSettingError(ValueError):
    """A judge setting that cannot be used: ``where`` names it, ``problem`` says why."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}")


def urls(where: str, value: Any, allow_empty: bool = False) -> list[str]:
    """Endpoint URLs: a list (or tuple: mmengine's) of http(s) URLs, non-empty unless
    *allow_empty* (the generator's "no judge")."""
    if (
        not isinstance(value, (list, tuple))
        or not (value or allow_empty)
        or not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in value)
    ):
        what = "a list" if allow_empty else "a non-empty list"
        raise JudgeSettingError(where, f"must be {what} of http(s) URLs, got {value!r}")
    return list(value)


def model_name(where: str, value: Any) -> str:
    """The judge model's name as served at the URLs: a non-empty one-line string."""
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise JudgeSettingError(
            where, f"must be the judge model name served at the urls, got {value!r}"
        )
    return value


def prompt_name(where: str, value: Any) -> str:
    """A prompt family of :data:`PROMPT_NAMES` (the removed 'livemath-judge' says why)."""
    if value == "livemath-judge":
        raise JudgeSettingError(
            where,
            "'livemath-judge' was removed; LiveMath-Judge was fine-tuned on OpenCompass's "
            "LiveMathBench judge prompt: use prompt='opencompass' ('auto' picks it for a "
            "LiveMath-Judge model)",
        )
    if value not in PROMPT_NAMES:
        shown = ", ".join(repr(p) for p in PROMPT_NAMES)
        raise JudgeSettingError(where, f"must be one of {shown}, got {value!r}")
    return str(value)


def count(where: str, value: Any, minimum: int) -> int:
    """An integer (not a bool) >= *minimum*."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise JudgeSettingError(where, f"must be an integer >= {minimum}, got {value!r}")
    return value


def seconds(where: str, value: Any, positive: bool = False) -> float:
    """A finite non-negative number (> 0 when *positive*)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
        or (positive and value == 0)
    ):
        bound = "> 0" if positive else ">= 0"
        raise JudgeSettingError(where, f"must be a finite number {bound}, got {value!r}")
    return float(value)


def optional_text(where: str, value: Any) -> str | None:
    """None or a string."""
    if value is not None and not isinstance(value, str):
        raise JudgeSettingError(where, f"must be a string, got {value!r}")
    return value
