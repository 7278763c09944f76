"""The template schema: every variable a grid template may set, as data.

One table (:data:`VARIABLES`, :data:`API_MODEL_KEYS`) gives each variable's name, type,
default, alias, documentation and check. The same table drives validation
(:func:`validate`), the error messages (``<field>: <problem>``, one line) and the README's
tables (:func:`markdown_table`), so the three cannot drift apart.

Pure: no OpenCompass, no mmengine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpassk_oc.configgen.checks import (
    REQUIRED,
    Check,
    TemplateError,
    boolean,
    integer,
    k_lists,
    list_of,
    number,
    one_of,
    optional,
    suggest,
    text,
    urls,
    version,
)
from gpassk_oc.configgen.crosscheck import HUB_ID, cross_checks
from gpassk_oc.configgen.reasoning import (
    API_KEY,
    REASONING_VARIABLES,
    check_api_reasoning,
    validate_reasoning,
)
from gpassk_oc.core.data.livemath_data import KNOWN_VERSIONS
from gpassk_oc.core.judging.judge import PROMPT_NAMES

__all__ = [
    "TemplateError",
    "Var",
    "VARIABLES",
    "API_MODEL_KEYS",
    "KNOWN_VARIABLES",
    "ALIASES",
    "ModelSpec",
    "Settings",
    "validate",
    "markdown_table",
    "HUB_ID",
    "suggest",
]


# ------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Var:
    """One template variable. *alias* is a singular spelling whose value is one item of
    the list (GPassK templates wrote ``temperature = 1.0``, ``k = [4, 8, 16]``)."""

    name: str
    type: str
    default: Any
    doc: str
    check: Check
    alias: str | None = None
    default_doc: str | None = None  # how the default is shown when not a literal


def _tm_or_api(field: str, value: Any) -> list:
    if not isinstance(value, (list, tuple)):
        raise TemplateError(f"must be a list, got {type(value).__name__}", field)
    if not value:
        raise TemplateError("is empty", field)
    return list(value)


VARIABLES: tuple[Var, ...] = (
    Var(
        "llm_infos",
        "list",
        None,
        "TurboMind models: `(path, tensor parallel, batch size)`, optionally a 4th element "
        "`abbr`, or `dict(path=, tp=, batch_size=, abbr=)`",
        _tm_or_api,
        default_doc="—",
    ),
    Var(
        "api_models",
        "list[dict]",
        None,
        "OpenAI-compatible models, keys in the next table",
        _tm_or_api,
        default_doc="—",
    ),
    Var(
        "temperatures",
        "list[float]",
        REQUIRED,
        "sampling temperatures in [0, 2]; **0 = greedy**",
        list_of(number(0, 2, False, what="temperature "), "temperature "),
        alias="temperature",
    ),
    Var(
        "top_ps",
        "list[float]",
        [1.0],
        "nucleus sampling, each in (0, 1]",
        list_of(number(0, 1, True, what="top_p "), "top_p "),
        alias="top_p",
    ),
    Var(
        "ks",
        "list[list[int]]",
        REQUIRED,
        "list of k-lists, e.g. `[[4, 8, 16]]`; each strictly increasing",
        k_lists,
        alias="k",
    ),
    Var(
        "replications",
        "list[int]",
        None,
        "r; n = r × max(k)",
        list_of(integer(1), "replication "),
        alias="replication",
        default_doc="required unless `n`",
    ),
    Var(
        "n",
        "int",
        None,
        "instead of replications: samples per question, a multiple of max(k) of every k-list",
        optional(integer(1)),
        default_doc="—",
    ),
    Var("top_k", "int", 50, "top-k cut-off (-1 = none)", integer(-1)),
    Var(
        "repetition_penalty", "float", 1.0, "repetition penalty (1.0 = none)", number(0, None, True)
    ),
    Var(
        "random_seed",
        "int",
        42,
        "recorded in the names; sent only with `send_random_seed = True`",
        integer(),
    ),
    Var(
        "send_random_seed",
        "bool",
        False,
        "send the seed to the engine (one fixed seed makes the n samples identical)",
        boolean,
    ),
    Var("max_out_len", "int", 8192, "maximum generated tokens", integer(1)),
    Var(
        "max_seq_len",
        "int",
        None,
        "context length (TurboMind `session_len`)",
        optional(integer(2)),
        default_doc="`max_out_len + 4096`",
    ),
    Var(
        "enable_prefix_caching",
        "bool",
        True,
        "TurboMind prefix caching (every prompt is sent n times)",
        boolean,
    ),
    Var(
        "data_path",
        "str",
        HUB_ID,
        "hub id, or a local directory `{data_path}/{version}/{split}_{lang}.jsonl`",
        text,
    ),
    Var(
        "version",
        "str",
        "202412",
        f"LiveMathBench version ({', '.join(repr(v) for v in KNOWN_VERSIONS)})",
        version,
    ),
    Var(
        "dataset_splits",
        "list[str]",
        ["CNMO", "CCEE", "AMC", "WLPMC"],
        "splits of that version (`['hard']` for the hard split)",
        list_of(text, "split "),
    ),
    Var(
        "dataset_languages",
        "list[str]",
        ["cn", "en"],
        "languages of that version",
        list_of(text, "language "),
    ),
    Var("cot", "bool", True, "chain-of-thought prompt", boolean),
    Var("eval_urls", "list[str]", [], "judge endpoints; empty = rule-based checking", urls),
    Var(
        "eval_model_name",
        "str",
        None,
        "model served at `eval_urls`; without URLs it is ignored (rule-based, with a note)",
        optional(text),
    ),
    Var(
        "eval_prompt",
        "str",
        "auto",
        "judge prompt: `'opencompass'` = LiveMathBench's own (the paper's tables), `'gpassk'`, "
        "or `'auto'` (OpenCompass's for a LiveMath-Judge model, else gpassk's); GPassK-style "
        "templates get `'opencompass'`",
        one_of(*PROMPT_NAMES),
    ),
    Var(
        "max_num_workers",
        "int",
        None,
        "when set, `infer`/`eval` LocalRunner sections with this many workers",
        optional(integer(1)),
        default_doc="unset",
    ),
)

BY_NAME: dict[str, Var] = {v.name: v for v in VARIABLES}
ALIASES: dict[str, str] = {v.alias: v.name for v in VARIABLES if v.alias}
#: name -> doc of every accepted variable name (aliases included).
KNOWN_VARIABLES: dict[str, str] = {
    **{v.name: v.doc for v in VARIABLES},
    **{a: f"alias: one item of {p}" for a, p in ALIASES.items()},
    **{name: spec[2] for name, spec in REASONING_VARIABLES.items()},  # configgen/reasoning.py
}

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
    "batch_size": (8, integer(1), "concurrent requests"),
    "query_per_second": (1, integer(1), "rate limit"),
    "retry": (3, integer(0), "retries per request"),
    "timeout": (None, optional(integer(1)), "request timeout in seconds"),
    "send_top_p": (True, boolean, "`False` for endpoints that reject `top_p` (OpenAI o-series)"),
    "extra_sampling": (
        False,
        boolean,
        "send `top_k` / `repetition_penalty` in "
        "`extra_body` (self-hosted vLLM / LMDeploy / SGLang only)",
    ),
}
_SECRET_KEYS = {"key", "api_key", "openai_api_key"}


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

    def api_get(self, key: str) -> Any:
        return dict(self.api)[key]


def _base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _name_base(field: str, value: Any) -> str:
    value = text(field, value)
    for bad in ("/", "@", " "):
        if bad in value:
            raise TemplateError(f"name {value!r} contains {bad!r}", field)
    return value


def _llm_info(field: str, info: Any) -> ModelSpec:
    if isinstance(info, Mapping):
        unknown = [k for k in info if k not in ("path", "tp", "batch_size", "abbr")]
        if unknown:
            raise TemplateError(
                f"unknown key {unknown[0]!r} (known: path, tp, batch_size, abbr)", field
            )
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
    tp = integer(1)(f"{field} tensor parallel", tp)
    bs = integer(1)(f"{field} batch size", bs)
    base = _name_base(field, abbr if abbr is not None else _base(path))
    return ModelSpec("turbomind", path, base, field, tp, bs)


def _api_model(field: str, entry: Any) -> ModelSpec:
    if not isinstance(entry, Mapping):
        raise TemplateError(f"must be a dict, got {type(entry).__name__}", field)
    for key in entry:
        if key in _SECRET_KEYS:
            raise TemplateError(
                f"sets {key!r}: generated files never carry keys; export OPENAI_API_KEY instead",
                field,
            )
        if key not in API_MODEL_KEYS and key != API_KEY:
            raise TemplateError(
                f"unknown key {key!r}{suggest(key, [*API_MODEL_KEYS, API_KEY])}", field
            )
    values: dict[str, Any] = {
        API_KEY: check_api_reasoning(f"{field}.{API_KEY}", entry.get(API_KEY))
    }
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
        "api", path, base, field, batch_size=values["batch_size"], api=tuple(values.items())
    )


def _models(variables: Mapping[str, Any]) -> list[ModelSpec]:
    if "llm_infos" not in variables and "api_models" not in variables:
        raise TemplateError("no models: set llm_infos and/or api_models")
    specs: list[ModelSpec] = []
    for name, parse in (("llm_infos", _llm_info), ("api_models", _api_model)):
        if name in variables:
            items = _tm_or_api(name, variables[name])
            specs += [parse(f"{name}[{i}]", item) for i, item in enumerate(items)]
    seen: dict[str, ModelSpec] = {}
    for spec in specs:
        if spec.base in seen:
            first = seen[spec.base]
            raise TemplateError(
                f"name {spec.base!r} is also used by {first.field} ({first.path}); their "
                "configs would get the same names: give one an explicit abbr (a 4th element "
                "of an llm_infos tuple, or abbr= in a dict)",
                spec.field,
            )
        seen[spec.base] = spec
    return specs


# ------------------------------------------------------------------------- validate


@dataclass
class Settings:
    """A validated template: its models and every variable's value (defaults filled)."""

    models: list[ModelSpec]
    values: dict[str, Any]
    notes: list[str]

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


def _pick(variables: Mapping[str, Any], var: Var) -> tuple[str, Any] | None:
    """(field name, value as a list) of a variable given by its name or its alias."""
    if var.alias and var.name in variables and var.alias in variables:
        raise TemplateError(f"set either {var.alias} or {var.name}, not both", var.name)
    if var.name in variables:
        return var.name, variables[var.name]
    if var.alias and var.alias in variables:
        value = variables[var.alias]
        if var.name == "ks":  # GPassK wrote `k = 16` or `k = [4, 8, 16]`
            value = [[value]] if isinstance(value, int) and not isinstance(value, bool) else [value]
        else:
            value = [value]
        return var.alias, value
    return None


def validate(variables: Mapping[str, Any]) -> Settings:
    """Check every variable against :data:`VARIABLES` (unknown names, types, ranges, the
    cross-field rules) and return the values with defaults filled in."""
    for name in variables:
        if name not in KNOWN_VARIABLES:
            raise TemplateError(f"unknown variable {name!r}{suggest(name, KNOWN_VARIABLES)}")
    models = _models(variables)
    values: dict[str, Any] = {}
    for var in VARIABLES:
        if var.name in ("llm_infos", "api_models"):  # parsed by _models above
            continue
        picked = _pick(variables, var)
        if picked is None:
            if var.default is REQUIRED:
                alias = f" (or {var.alias})" if var.alias else ""
                raise TemplateError(f"missing variable {var.name!r}{alias}")
            values[var.name] = var.default
        else:
            values[var.name] = var.check(picked[0], picked[1])
    values.update(validate_reasoning(variables))
    notes: list[str] = []
    cross_checks(values, notes)
    return Settings(models, values, notes)


# ------------------------------------------------------------------------- docs


def _default_text(var: Var) -> str:
    if var.default_doc is not None:
        return var.default_doc
    if var.default is REQUIRED:
        return "required"
    return f"`{var.default!r}`"


def markdown_table() -> str:
    """The README's variable table and api_models key table, generated from the schema."""
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for var in VARIABLES:
        name = f"`{var.name}`" + (f" (or `{var.alias}`)" if var.alias else "")
        rows.append(f"| {name} | {var.type} | {_default_text(var)} | {var.doc} |")
    rows += ["", "| `api_models` key | default | meaning |", "|---|---|---|"]
    for key, (default, _, doc) in API_MODEL_KEYS.items():
        shown = (
            "required"
            if default is REQUIRED
            else ("unset" if default is None else f"`{default!r}`")
        )
        rows.append(f"| `{key}` | {shown} | {doc} |")
    return "\n".join(rows)
