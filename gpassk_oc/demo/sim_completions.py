"""What the simulated endpoint answers to one chat request: n choices, max-token cuts, usage.

A real OpenAI-compatible server samples ``n`` replies for a request that asks for them,
stops a reply at ``max_tokens`` with ``finish_reason: "length"``, and reports in
``usage`` how many tokens it read and wrote. :func:`chat_completion` does the same for a
responder (``(model, messages, params) -> str | dict``, see
:mod:`gpassk_oc.demo.sim_endpoint`): each of the n choices is one more call of the
responder, exactly as if the client had sent n requests with ``n = 1`` one after the other,
so a request for one choice gets what it always got.

**Tokens.** The simulated models have no tokenizer: here a token is a maximal run of
non-whitespace characters (what ``str.split()`` returns), so anyone can recount them.

* ``prompt_tokens``: the tokens of the text of every message's ``content`` (roles and chat
  template are not counted);
* ``completion_tokens``: the tokens of every choice's ``reasoning_content`` and
  ``content`` as sent (after any cut), summed over the choices;
* ``total_tokens``: their sum.

**Cuts.** A reply is generated as its ``reasoning_content`` (if any) then its ``content``.
With ``max_completion_tokens`` (or else ``max_tokens``) = m, a choice keeps its first m
tokens in that order, with the whitespace between them as it was (nothing after the m-th
token), and answers ``finish_reason: "length"``; a thought cut this way leaves an empty
``content``. A reply of at most m tokens is sent whole with ``"stop"``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "GENERATED_FIELDS",
    "MAX_CHOICES",
    "BadRequest",
    "chat_completion",
    "count_tokens",
    "cut_to_tokens",
    "prompt_tokens",
]

#: the assistant-message fields a model generates, in the order it generates them
GENERATED_FIELDS = ("reasoning_content", "content")
#: the most choices one request may ask for (OpenAI's own limit)
MAX_CHOICES = 128

_TOKEN = re.compile(r"\S+")


class BadRequest(ValueError):
    """A request field the endpoint refuses (HTTP 400, as a real server answers)."""


def count_tokens(text: str) -> int:
    """Tokens in *text*: runs of non-whitespace characters."""
    return len(_TOKEN.findall(text))


def cut_to_tokens(text: str, limit: int) -> tuple[str, int, bool]:
    """``(kept text, its tokens, whether anything was cut)`` for at most *limit* tokens."""
    tokens = list(_TOKEN.finditer(text))
    if len(tokens) <= limit:
        return text, len(tokens), False
    if limit <= 0:
        return "", 0, True
    return text[: tokens[limit - 1].end()], limit, True


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # multimodal parts: their text parts
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Tokens of the text of every message's content."""
    return sum(
        count_tokens(_content_text(m.get("content"))) for m in messages if isinstance(m, Mapping)
    )


def _whole_number(body: Mapping[str, Any], field: str, most: int | None) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadRequest(f"{field}: must be an integer >= 1, got {value!r}")
    if most is not None and value > most:
        raise BadRequest(f"{field}: at most {most}, got {value}")
    return value


def _choice(reply: str | Mapping[str, Any], index: int, budget: int | None) -> tuple[dict, int]:
    """One choice from a responder's reply, cut to *budget* tokens; and its tokens."""
    message: dict[str, Any] = {"role": "assistant"}
    message.update(reply if isinstance(reply, Mapping) else {"content": reply})
    used, cut = 0, False
    for field in GENERATED_FIELDS:
        value = message.get(field)
        if not isinstance(value, str):
            continue
        if budget is None:
            used += count_tokens(value)
            continue
        message[field], tokens, field_cut = cut_to_tokens(value, budget - used)
        used += tokens
        cut = cut or field_cut
    choice = {"index": index, "finish_reason": "length" if cut else "stop", "message": message}
    return choice, used


def chat_completion(
    responder: Callable[[str, list, dict], Any], body: dict[str, Any], request_id: str
) -> dict[str, Any]:
    """The ``chat.completion`` object answering request *body*: its ``n`` choices (one
    responder call each, in order), each cut at the request's token limit, and ``usage``.

    Raises :class:`BadRequest` for an ``n`` or token limit that is not an integer >= 1;
    whatever the responder raises propagates (the endpoint answers HTTP 500).
    """
    n = _whole_number(body, "n", MAX_CHOICES) or 1
    budget = _whole_number(body, "max_completion_tokens", None)
    if budget is None:
        budget = _whole_number(body, "max_tokens", None)
    model = str(body.get("model", ""))
    messages = list(body.get("messages") or [])
    choices, completion = [], 0
    for index in range(n):
        choice, tokens = _choice(responder(model, messages, body), index, budget)
        choices.append(choice)
        completion += tokens
    prompt = prompt_tokens(messages)
    return {
        "id": request_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
