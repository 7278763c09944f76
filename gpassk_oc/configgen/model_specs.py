"""The models of a template: ``llm_infos`` (TurboMind) and ``api_models`` (OpenAI-compatible
endpoints) parsed into :class:`ModelSpec`, with the table of ``api_models`` keys.

Split from :mod:`.schema` (which re-exports these names) so the variable table stays
there, alone. Pure: no OpenCompass, no mmengine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpassk_oc.configgen.checks import (
    MAX_OUT_LEN,
    MAX_SEQ_LEN,
    REQUIRED,
    Check,
    TemplateError,
    boolean,
    integer,
    optional,
    suggest,
    text,
    urls,
)
from gpassk_oc.configgen.reasoning_settings import (
    API_KEY,
    API_KEY_DOC,
    MODEL_TAGS_DOC,
    check_api_reasoning,
    check_model_tags,
)

__all__ = [
    "API_MODEL_KEYS",
    "LLM_INFO_KEYS",
    "MODEL_KEYS",
    "ModelSpec",
    "model_list",
    "parse_models",
]


def model_list(field: str, value: Any) -> list:
    """The value of `llm_infos` / `api_models`: a non-empty list (entries parsed later)."""
    if not isinstance(value, (list, tuple)):
        raise TemplateError(f"must be a list, got {type(value).__name__}", field)
    if not value:
        raise TemplateError("is empty", field)
    return list(value)


#: Keys of an ``api_models`` entry: name -> (default, check, doc). None = not emitted.
API_MODEL_KEYS: dict[str, tuple[Any, Check | None, str]] = {
    "path": (REQUIRED, text, "the model name the endpoint serves"),
    "openai_api_base": (REQUIRED, None, "URL, or a list of URLs (one is picked per task)"),
    "abbr": (
        None,
        optional(text),
        "name base in abbrs and file names (default: basename of `path`)",
    ),
    "tokenizer_path": (
        None,
        optional(text),
        "local tokenizer directory (unset: token counts are approximated, nothing is downloaded)",
    ),
    "batch_size": (8, integer(1, 4096, "concurrent requests"), "concurrent requests (<= 4,096)"),
    "query_per_second": (1, integer(1, 10_000, "requests per second"), "rate limit (<= 10,000)"),
    "retry": (3, integer(0, 100, "retries per request"), "retries per request (<= 100)"),
    "timeout": (
        None,
        optional(integer(1, 86_400, "one day")),
        "request timeout in seconds (<= 86,400)",
    ),
    "send_top_p": (True, boolean, "`False` for endpoints that reject `top_p` (OpenAI o-series)"),
    "extra_sampling": (
        False,
        boolean,
        "send `top_k` / `repetition_penalty` in "
        "`extra_body` (self-hosted vLLM / LMDeploy / SGLang only)",
    ),
}
_SECRET_KEYS = {"key", "api_key", "openai_api_key"}

#: Keys either kind of model entry may set for itself (an ``llm_infos`` dict, an
#: ``api_models`` entry): name -> (check, doc). Unset: the template's variable applies.
MODEL_KEYS: dict[str, tuple[Check, str]] = {
    "max_out_len": (
        optional(integer(1, MAX_OUT_LEN, "tokens per reply")),
        "this model's `max_out_len` (in its file names), e.g. a 4K-context model in a grid "
        "of long-context ones (default: `max_out_len`)",
    ),
    "max_seq_len": (
        optional(integer(2, MAX_SEQ_LEN, "tokens of context")),
        "this model's `max_seq_len` (default: `max_seq_len`, or its own `max_out_len` + 4096)",
    ),
    API_KEY: (check_api_reasoning, API_KEY_DOC),
    "think_tags": (check_model_tags, MODEL_TAGS_DOC),
}
#: Keys of an ``llm_infos`` dict: name -> (default, doc); the tuple form gives the first four.
LLM_INFO_KEYS: dict[str, tuple[Any, str]] = {
    "path": (REQUIRED, "Hugging Face hub id or local model directory"),
    "tp": (1, "tensor parallel: GPUs per model (<= 64)"),
    "batch_size": (1, "TurboMind batch size (<= 4,096)"),
    "abbr": (None, "name base in abbrs and file names (default: basename of `path`)"),
    **{key: (None, doc) for key, (_, doc) in MODEL_KEYS.items()},
}


# ------------------------------------------------------------------------- models


@dataclass(frozen=True)
class ModelSpec:
    """One model of a template: a TurboMind checkpoint or an OpenAI-compatible endpoint."""

    kind: str  # 'turbomind' | 'api'
    path: str  # HF path / local dir, or served model name
    base: str  # name base written in abbrs and file names
    field: str  # where it was declared, e.g. 'llm_infos[1]'
    tp: int = 1
    batch_size: int = 1
    api: tuple[tuple[str, Any], ...] = ()  # validated api_models entry, defaults filled
    own: tuple[tuple[str, Any], ...] = ()  # the MODEL_KEYS this entry set (not None)
    line: int | None = None  # the template line of the entry, when known

    def api_get(self, key: str) -> Any:
        return dict(self.api)[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The entry's own value of a :data:`MODEL_KEYS` key, else *default*."""
        return dict(self.own).get(key, default)

    def lengths(self, max_out_len: int, max_seq_len: int) -> tuple[int, int]:
        """(max_out_len, max_seq_len) of this model, given the template's."""
        out = self.get("max_out_len", max_out_len)
        seq = self.get("max_seq_len")
        if seq is None:
            seq = out + 4096 if self.get("max_out_len") is not None else max_seq_len
        return out, seq

    @property
    def where(self) -> str:
        """``llm_infos[1]`` or ``llm_infos[1] (line 14)``: the entry, for messages."""
        return self.field + (f" (line {self.line})" if self.line else "")


def _own(field: str, entry: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The entry's MODEL_KEYS, checked; max_seq_len above max_out_len."""
    own = {}
    for key, (check, _) in MODEL_KEYS.items():
        if entry.get(key) is not None:
            own[key] = check(f"{field}.{key}", entry[key])
    if "max_seq_len" in own and own["max_seq_len"] <= own.get("max_out_len", 0):
        raise TemplateError(
            f"{own['max_seq_len']} is not above max_out_len = {own['max_out_len']}",
            f"{field}.max_seq_len",
        )
    return tuple(own.items())


def _base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _name_base(field: str, value: Any) -> str:
    value = text(field, value)
    for bad in ("/", "@", " "):
        if bad in value:
            raise TemplateError(f"name {value!r} contains {bad!r}", field)
    return value


def _llm_info(field: str, info: Any) -> ModelSpec:
    own: tuple[tuple[str, Any], ...] = ()
    if isinstance(info, Mapping):
        unknown = [k for k in info if k not in LLM_INFO_KEYS]
        if unknown:
            raise TemplateError(
                f"unknown key {unknown[0]!r} (known: {', '.join(LLM_INFO_KEYS)})", field
            )
        own = _own(field, info)
        if "path" not in info:
            raise TemplateError("needs 'path'", field)
        path, tp, bs, abbr = (
            info["path"],
            info.get("tp", 1),
            info.get("batch_size", 1),
            info.get("abbr"),
        )
    elif isinstance(info, (list, tuple)) and len(info) in (3, 4):
        path, tp, bs = info[:3]
        abbr = info[3] if len(info) == 4 else None
    else:
        raise TemplateError(
            "must be (path, tensor parallel, batch size[, abbr]) or "
            f"dict(path=..., tp=..., batch_size=..., abbr=...), got {info!r}",
            field,
        )
    path = text(field, path)
    tp = integer(1, 64, "GPUs per model")(f"{field} tensor parallel", tp)
    bs = integer(1, 4096, "sequences per batch")(f"{field} batch size", bs)
    base = _name_base(field, abbr if abbr is not None else _base(path))
    return ModelSpec("turbomind", path, base, field, tp, bs, own=own)


def _api_model(field: str, entry: Any) -> ModelSpec:
    if not isinstance(entry, Mapping):
        raise TemplateError(f"must be a dict, got {type(entry).__name__}", field)
    for key in entry:
        if key in _SECRET_KEYS:
            raise TemplateError(
                f"sets {key!r}: generated files never carry keys; export OPENAI_API_KEY instead",
                field,
            )
        if key not in API_MODEL_KEYS and key not in MODEL_KEYS:
            raise TemplateError(
                f"unknown key {key!r}{suggest(key, [*API_MODEL_KEYS, *MODEL_KEYS])}", field
            )
    values: dict[str, Any] = {}
    for key, (default, check, _) in API_MODEL_KEYS.items():
        if key not in entry:
            if default is REQUIRED:
                raise TemplateError(f"needs {key!r}", field)
            values[key] = default
        elif check is not None:
            values[key] = check(f"{field}.{key}", entry[key])
    bases = entry["openai_api_base"]
    listed = [bases] if isinstance(bases, str) else bases
    if not isinstance(listed, (list, tuple)) or not listed:
        raise TemplateError(
            "must be an http(s) URL or a non-empty list of them", f"{field}.openai_api_base"
        )
    urls(f"{field}.openai_api_base", listed)
    values["openai_api_base"] = list(bases) if isinstance(bases, (list, tuple)) else bases
    path = values["path"]
    base = _name_base(field, values["abbr"] or _base(path))
    return ModelSpec(
        "api",
        path,
        base,
        field,
        batch_size=values["batch_size"],
        api=tuple(values.items()),
        own=_own(field, entry),
    )


def parse_models(
    variables: Mapping[str, Any], lines: Mapping[str, Sequence[int]] | None = None
) -> list[ModelSpec]:
    """The template's models; *lines* (the template line of each entry, by variable) are
    kept for messages."""
    if "llm_infos" not in variables and "api_models" not in variables:
        raise TemplateError("no models: set llm_infos and/or api_models")
    specs: list[ModelSpec] = []
    for name, parse in (("llm_infos", _llm_info), ("api_models", _api_model)):
        if name in variables:
            items = model_list(name, variables[name])
            known = list((lines or {}).get(name, ()))
            at = known if len(known) == len(items) else [None] * len(items)
            specs += [
                replace(parse(f"{name}[{i}]", item), line=at[i]) for i, item in enumerate(items)
            ]
    seen: dict[str, ModelSpec] = {}
    for spec in specs:
        if spec.base.casefold() in seen:  # one file on a case-insensitive file system
            first = seen[spec.base.casefold()]
            raise TemplateError(
                f"name {spec.base!r} is also used by {first.field} ({first.path}"
                + (f", line {first.line}" if first.line else "")
                + "); their "
                "configs would get the same names: give one an explicit abbr (a 4th element "
                "of an llm_infos tuple, or abbr= in a dict)",
                spec.where,
            )
        seen[spec.base.casefold()] = spec
    return specs
