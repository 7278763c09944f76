"""Template settings for reasoning models: ``reasoning`` and ``think_tags`` (pure).

A template declares its models reasoning (``reasoning = True``: the o1 template does); an
``api_models`` entry may override it with ``reasoning=True/False`` (close.py serves
DeepSeek-R1 next to GPT-4o). The generated evaluator then gets
``GPassKEvaluator(reasoning=True)``; tags other than ``<think>``/``</think>`` are written
as ``think_tags`` and, for API models, as OpenAISDK's ``think_tag`` (the marker it puts
between ``reasoning_content`` and ``content``). Defaults write nothing, so files generated
before these settings existed are unchanged.

These variables are kept apart from :data:`gpassk_oc.configgen.schema.VARIABLES` and
documented by :func:`reasoning_table` in ``docs/reasoning-models.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpassk_oc.configgen.checks import Check, TemplateError, boolean, optional
from gpassk_oc.core.answers.reasoning import DEFAULT_THINK_TAGS, ThinkTags

__all__ = [
    "API_KEY",
    "REASONING_VARIABLES",
    "api_model_settings",
    "check_api_reasoning",
    "evaluator_settings",
    "reasoning_table",
    "validate_reasoning",
]

DEFAULT_TAGS = [DEFAULT_THINK_TAGS.open, DEFAULT_THINK_TAGS.close]


def _tags(field: str, value: Any) -> list[str]:
    try:
        tags = ThinkTags.coerce(value, field)
    except ValueError as exc:  # "field: problem" → TemplateError(problem, field)
        raise TemplateError(str(exc).split(": ", 1)[1], field) from None
    return [tags.open, tags.close]


#: name -> (type, default, doc, check), in the order of :func:`reasoning_table`
REASONING_VARIABLES: dict[str, tuple[str, Any, str, Check]] = {
    "reasoning": (
        "bool",
        False,
        "the models think before answering (QwQ, DeepSeek-R1, o1-style): a reply without a "
        "closing think tag is truncated — scored wrong, never judged",
        boolean,
    ),
    "think_tags": (
        "list[str]",
        DEFAULT_TAGS,
        "(opening, closing) thinking markers; every reply is read after its last closing one",
        _tags,
    ),
}
#: the ``api_models`` key that overrides ``reasoning`` for one model
API_KEY = "reasoning"
API_KEY_DOC = "`True`/`False`: this model is (not) a reasoning model (default: `reasoning`)"
check_api_reasoning: Check = optional(boolean)


def validate_reasoning(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The reasoning variables of a template, checked, defaults filled."""
    return {
        name: check(name, variables[name]) if name in variables else default
        for name, (_, default, _, check) in REASONING_VARIABLES.items()
    }


def evaluator_settings(
    reasoning: bool, think_tags: Sequence[str], model_reasoning: bool | None
) -> dict[str, Any]:
    """``GPassKEvaluator`` keyword arguments for one model: the template's *reasoning* and
    *think_tags*; *model_reasoning* is the model's ``api_models`` override (None: none)."""
    out: dict[str, Any] = {}
    if reasoning if model_reasoning is None else model_reasoning:
        out["reasoning"] = True
    if list(think_tags) != DEFAULT_TAGS:
        out["think_tags"] = list(think_tags)
    return out


def api_model_settings(think_tags: Sequence[str]) -> dict[str, Any]:
    """OpenAISDK keyword arguments: its ``think_tag`` when the closing tag is not the default."""
    close = think_tags[1]
    return {} if close == DEFAULT_THINK_TAGS.close else {"think_tag": close}


def reasoning_table() -> str:
    """The docs table of the reasoning variables and the ``api_models`` key."""
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for name, (kind, default, doc, _) in REASONING_VARIABLES.items():
        rows.append(f"| `{name}` | {kind} | `{default!r}` | {doc} |")
    rows += ["", "| `api_models` key | default | meaning |", "|---|---|---|"]
    rows.append(f"| `{API_KEY}` | unset | {API_KEY_DOC} |")
    return "\n".join(rows)
