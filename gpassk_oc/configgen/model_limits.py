"""What the named models accept: context length and output limit, as data with its source.

The table holds the models the shipped templates name (``opencompass_config_templates/``):
a test dumps each of them with ``--strict``. A local model directory is read instead: its
``config.json`` ``max_position_embeddings`` is the context length. Any other model's limits
are unknown: not checked, said once per dump.

:func:`check_limits` compares each model's ``max_out_len`` / ``max_seq_len`` (TurboMind
``session_len``) with its limits: one line per value above a limit, for a ``note:`` (a
refusal with ``dump --strict``). Pure but for reading ``config.json``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpassk_oc.configgen.checks import TemplateError
from gpassk_oc.configgen.model_specs import ModelSpec

__all__ = ["Limits", "KNOWN_LIMITS", "limits_of", "check_limits", "unknown_line"]


@dataclass(frozen=True)
class Limits:
    """*context*: tokens of prompt + reply; *output*: tokens of one reply (None: only the
    context bounds it, as for an open checkpoint)."""

    context: int
    output: int | None
    source: str


def _hf(context: int, repo: str) -> Limits:
    return Limits(context, None, f"max_position_embeddings in {repo}'s config.json")


_OPENAI = "OpenAI API docs, model page of {}"
_DEEPSEEK = "DeepSeek API docs, Models & Pricing"

#: model (hub id or served name) -> limits, from the models' published configs and the
#: APIs' documentation
KNOWN_LIMITS: dict[str, Limits] = {
    **{
        repo: _hf(context, repo)
        for repo, context in {
            "meta-llama/Llama-3.1-8B-Instruct": 131072,
            "meta-llama/Llama-3.1-70B-Instruct": 131072,
            "meta-llama/Llama-3.3-70B-Instruct": 131072,
            "Qwen/Qwen2.5-7B-Instruct": 32768,
            "Qwen/Qwen2.5-32B-Instruct": 32768,
            "Qwen/Qwen2.5-72B-Instruct": 32768,
            "internlm/internlm3-8b-instruct": 32768,
            "mistralai/Mistral-Large-Instruct-2411": 131072,
            "deepseek-ai/deepseek-math-7b-rl": 4096,
            "Qwen/Qwen2.5-Math-7B-Instruct": 4096,
            "Qwen/Qwen2.5-Math-72B-Instruct": 4096,
            "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B": 131072,
            "deepseek-ai/DeepSeek-R1-Distill-Llama-8B": 131072,
            "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": 131072,
            "deepseek-ai/DeepSeek-R1-Distill-Llama-70B": 131072,
            "Qwen/QwQ-32B-Preview": 32768,
            "Qwen/QwQ-32B": 40960,
        }.items()
    },
    "o3-mini-2025-01-31": Limits(200_000, 100_000, _OPENAI.format("o3-mini")),
    "o1-mini-2024-09-12": Limits(128_000, 65_536, _OPENAI.format("o1-mini")),
    "gpt-4o-2024-11-20": Limits(128_000, 16_384, _OPENAI.format("gpt-4o")),
    "deepseek-reasoner": Limits(131_072, 65_536, _DEEPSEEK + " (deepseek-reasoner)"),
    "deepseek-chat": Limits(131_072, 8_192, _DEEPSEEK + " (deepseek-chat)"),
}


def _local_limits(spec: ModelSpec, directory: Path) -> Limits | None:
    """A local model directory's context length from its config.json; None when the file
    gives none. A directory without config.json is no model TurboMind can load."""
    config = directory / "config.json"
    if not config.is_file():
        raise TemplateError(
            f"{spec.path} is a local directory without config.json (a Hugging Face model "
            "directory has one; its max_position_embeddings is the context length)",
            spec.where,
        )
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TemplateError(f"{config}: not readable JSON ({exc})", spec.where) from None
    value = data.get("max_position_embeddings") if isinstance(data, dict) else None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return None
    return Limits(value, None, f"max_position_embeddings in {config}")


def limits_of(spec: ModelSpec, cwd: Path | None = None) -> Limits | None:
    """The limits of one model: a local directory's config.json, else the table (by hub
    id or served name); None when unknown."""
    if spec.kind == "turbomind":
        local = Path(spec.path).expanduser()
        if not local.is_absolute() and cwd is not None:
            local = cwd / local
        if local.is_dir():
            return _local_limits(spec, local)
    return KNOWN_LIMITS.get(spec.path.rstrip("/"))


def check_limits(
    models: Sequence[ModelSpec], max_out_len: int, max_seq_len: int, cwd: Path | None = None
) -> tuple[list[str], list[ModelSpec]]:
    """(one line per value above a model's limit, the models whose limits are unknown)."""
    lines: list[str] = []
    unknown: list[ModelSpec] = []
    for spec in models:
        limits = limits_of(spec, cwd)
        if limits is None:
            unknown.append(spec)
            continue
        out, seq = spec.lengths(max_out_len, max_seq_len)
        what = "session_len" if spec.kind == "turbomind" else "max_seq_len"
        if limits.output is not None and out > limits.output:
            lines.append(
                f"{spec.where}: {spec.path}: max_out_len = {out:,} is above its output "
                f"limit of {limits.output:,} ({limits.source})"
            )
        if seq > limits.context:
            lines.append(
                f"{spec.where}: {spec.path}: max_seq_len ({what}) = {seq:,} is above its "
                f"context length of {limits.context:,} ({limits.source})"
            )
    return lines, unknown


def unknown_line(unknown: Sequence[ModelSpec]) -> str | None:
    """The one line of a dump naming the models whose limits are unknown, or None."""
    if not unknown:
        return None
    names = ", ".join(
        f"{spec.path} ({spec.field}" + (f", line {spec.line})" if spec.line else ")")
        for spec in unknown
    )
    return (
        f"limit unknown for {names}: max_out_len and max_seq_len not checked against "
        "them (known: the models of the shipped templates and local directories with a "
        "config.json)"
    )
