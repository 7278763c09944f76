"""What the server said about each reply: finish reason and token counts (pure core).

An OpenAI-compatible server answers every chat completion with ``choices[0].finish_reason``
(``"stop"``, ``"length"``, …) and ``usage`` (``prompt_tokens``, ``completion_tokens``).
OpenCompass keeps only the text. :class:`gpassk_oc.models.OpenAICompatible` writes these
facts to a sidecar next to the predictions file (``{predictions}.gpassk-replies.jsonl``, one
JSON object a line), keyed by :func:`reply_key` of (prompt, reply text): the prediction
itself is unchanged, and the evaluator, which sees both the prompt and the prediction, finds
each sample's facts by the same key — whatever order or shard the replies were written in.

The results file then carries per-sample lists ``finish_reason``, ``output_tokens`` and
``prompt_tokens`` in ``details`` (optional; ``null`` where the server sent nothing).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "FACT_FIELDS",
    "LENGTH_REASONS",
    "SIDECAR_SUFFIX",
    "STOP_REASONS",
    "ReplyFacts",
    "facts_line",
    "read_sample_facts",
    "read_sidecars",
    "reply_key",
    "sidecar_path",
    "stopped_by_length",
    "with_reply_facts",
]

#: the sidecar of ``{stem}.json`` is ``{stem}.gpassk-replies.jsonl`` (OpenCompass's own
#: readers look for ``{stem}.json`` and ``{stem}_{i}.json`` only)
SIDECAR_SUFFIX = ".gpassk-replies.jsonl"
#: finish reasons meaning "cut by the output budget" (OpenAI/vLLM/SGLang/LMDeploy/llama.cpp
#: and transformers say "length"; some gateways pass on their backend's word)
LENGTH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})
#: finish reasons meaning "the model ended the reply itself" (or the server refused it)
STOP_REASONS = frozenset(
    {
        "stop",
        "eos",
        "eos_token",
        "stop_sequence",
        "end_turn",
        "content_filter",
        "tool_calls",
        "function_call",
    }
)
#: the per-sample lists a results file's ``details`` entry may hold
FACT_FIELDS = ("finish_reason", "output_tokens", "prompt_tokens")


@dataclass(frozen=True)
class ReplyFacts:
    """One reply's facts as the server sent them (None: not sent)."""

    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReplyFacts:
        """Lenient: a field of the wrong type is read as not sent."""
        reason = data.get("finish_reason")
        return cls(
            finish_reason=reason if isinstance(reason, str) and reason else None,
            prompt_tokens=_count_or_none(data.get("prompt_tokens")),
            completion_tokens=_count_or_none(data.get("completion_tokens")),
        )


def _count_or_none(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def stopped_by_length(reason: str | None) -> bool | None:
    """True: cut by the output budget; False: ended otherwise; None: no or unknown reason."""
    if reason in LENGTH_REASONS:
        return True
    if reason in STOP_REASONS:
        return False
    return None


def reply_key(prompt: Any, reply: str) -> str:
    """A stable id of (prompt, reply): the same in the inference task (the prompt as sent)
    and the evaluator (the prompt as OpenCompass stored it: JSON turns tuples to lists)."""
    text = json.dumps(prompt, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(f"{text}\x00{reply}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def facts_line(key: str, facts: ReplyFacts) -> str:
    """One sidecar line."""
    return json.dumps({"key": key, **facts.to_json()}, ensure_ascii=False) + "\n"


def sidecar_path(predictions_file: str | Path) -> Path:
    """The sidecar of a predictions file (``abbr.json`` → ``abbr.gpassk-replies.jsonl``)."""
    path = Path(predictions_file)
    return path.with_name(path.stem + SIDECAR_SUFFIX)


def read_sidecars(paths: Iterable[str | Path]) -> dict[str, ReplyFacts]:
    """Every fact in the sidecars that exist among *paths*, by key; unreadable lines are
    skipped (a task killed mid-write leaves a partial last line)."""
    facts: dict[str, ReplyFacts] = {}
    for path in paths:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, Mapping) and isinstance(data.get("key"), str):
                facts[data["key"]] = ReplyFacts.from_json(data)
    return facts


def with_reply_facts(
    results: dict[str, Any], facts: Sequence[Sequence[ReplyFacts | None]]
) -> dict[str, Any]:
    """*results* (a results-file dict) with ``finish_reason``, ``output_tokens`` and
    ``prompt_tokens`` added to each question's details (q lists of n, None = unknown); left
    as is when no sample has any fact."""
    if not any(f is not None for row in facts for f in row):
        return results
    details = results["details"]
    if len(details) != len(facts):
        raise ValueError(f"reply facts for {len(facts)} questions, details for {len(details)}")
    for entry, row in zip(details, facts):
        known = [f or ReplyFacts() for f in row]
        entry["finish_reason"] = [f.finish_reason for f in known]
        entry["output_tokens"] = [f.completion_tokens for f in known]
        entry["prompt_tokens"] = [f.prompt_tokens for f in known]
    return results


def read_sample_facts(
    d: Mapping[str, Any], size: int, field_of: str, error: type[Exception] = ValueError
) -> dict[str, list[Any] | None]:
    """The optional per-sample fact lists of one ``details`` entry: each absent (None) or a
    list of *size* entries (strings for ``finish_reason``, counts ≥ 0 for the token fields,
    or null); *error* with one line naming ``{field_of}.{name}`` otherwise."""
    out: dict[str, list[Any] | None] = {}
    for name in FACT_FIELDS:
        values = d.get(name)
        if values is None:
            out[name] = None
            continue
        if not isinstance(values, list) or len(values) != size:
            raise error(f"{field_of}.{name}: need one entry per sample ({size})")
        if name == "finish_reason":
            bad = [v for v in values if v is not None and not isinstance(v, str)]
        else:
            bad = [v for v in values if v is not None and _count_or_none(v) is None]
        if bad:
            kind = "strings" if name == "finish_reason" else "integers >= 0"
            raise error(f"{field_of}.{name}: entries must be {kind} or null, got {bad[0]!r:.40}")
        out[name] = list(values)
    return out
