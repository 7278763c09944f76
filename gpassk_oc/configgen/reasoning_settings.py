"""Template settings for reasoning models: ``reasoning`` and ``think_tags`` (pure).

By default (``reasoning = 'auto'``) the evaluator detects a reasoning model from its
replies (:func:`gpassk_oc.core.answers.reasoning.reading_rule`). A template may force the
reading for its models (``reasoning = True``: the o1 template does; ``False``); an
``api_models`` entry or an ``llm_infos`` dict may override it with
``reasoning=True/False/'auto'`` and ``think_tags`` (close.py serves DeepSeek-R1 next to
GPT-4o; one template mixes R1-distill checkpoints with ordinary ones). A forced setting is written as
``GPassKEvaluator(reasoning=True)`` or ``reasoning=False``; tags other than
``<think>``/``</think>`` are written as ``think_tags`` and, for API models, as OpenAISDK's
``think_tag`` (the marker it puts between ``reasoning_content`` and ``content``).
Defaults write nothing, so files generated before these settings existed are unchanged.

These variables are kept apart from :data:`gpassk_oc.configgen.schema.VARIABLES` and
documented by :func:`reasoning_table` in ``docs/reasoning-models.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpassk_oc.configgen.checks import Check, TemplateError, optional
from gpassk_oc.core.answers.reasoning import (
    DEFAULT_THINK_TAGS,
    ThinkTags,
    check_reasoning_setting,
)

__all__ = [
    "API_KEY",
    "REASONING_VARIABLES",
    "api_model_settings",
    "check_api_reasoning",
    "check_model_tags",
    "evaluator_settings",
    "reasoning_table",
    "validate_reasoning",
]

DEFAULT_TAGS = [DEFAULT_THINK_TAGS.open, DEFAULT_THINK_TAGS.close]


def setting(field: str, value: Any) -> bool | str:
    """``'auto'``, True or False (a template's or an api_models entry's ``reasoning``)."""
    try:
        return check_reasoning_setting(value, field)
    except ValueError as exc:
        raise TemplateError(str(exc).split(": ", 1)[1], field) from None


def _tags(field: str, value: Any) -> list[str]:
    try:
        tags = ThinkTags.coerce(value, field)
    except ValueError as exc:  # "field: problem" → TemplateError(problem, field)
        raise TemplateError(str(exc).split(": ", 1)[1], field) from None
    return [tags.open, tags.close]


#: name -> (type, default, doc, check), in the order of :func:`reasoning_table`
REASONING_VARIABLES: dict[str, tuple[str, Any, str, Check]] = {
    "reasoning": (
        "bool or 'auto'",
        "auto",
        "`'auto'`: a model thinks if any reply of its evaluation closes a think tag, and then "
        "a reply without the closing tag is truncated — scored wrong, never judged; else "
        "replies are read whole. `True`/`False` force either reading",
        setting,
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
API_KEY_DOC = (
    "`True`/`False`: this model is (not) a reasoning model; `'auto'`: detect it "
    "(default: `reasoning`)"
)
MODEL_TAGS_DOC = "this model's (opening, closing) thinking markers (default: `think_tags`)"
check_api_reasoning: Check = optional(setting)
#: a model entry's own ``think_tags``
check_model_tags: Check = optional(_tags)


def validate_reasoning(variables: Mapping[str, Any]) -> dict[str, Any]:
    """The reasoning variables of a template, checked, defaults filled."""
    return {
        name: check(name, variables[name]) if name in variables else default
        for name, (_, default, _, check) in REASONING_VARIABLES.items()
    }


def evaluator_settings(
    reasoning: bool | str, think_tags: Sequence[str], model_reasoning: bool | str | None
) -> dict[str, Any]:
    """``GPassKEvaluator`` keyword arguments for one model: the template's *reasoning* and
    *think_tags*; *model_reasoning* is the model's ``api_models`` override (None: none).
    ``'auto'`` is the evaluator's default and is not written; True/False are."""
    out: dict[str, Any] = {}
    chosen = reasoning if model_reasoning is None else model_reasoning
    if isinstance(chosen, bool):
        out["reasoning"] = chosen
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
    rows += ["", "| `llm_infos` dict / `api_models` key | default | meaning |", "|---|---|---|"]
    rows.append(f"| `{API_KEY}` | unset | {API_KEY_DOC} |")
    rows.append(f"| `think_tags` | unset | {MODEL_TAGS_DOC} |")
    return "\n".join(rows)
