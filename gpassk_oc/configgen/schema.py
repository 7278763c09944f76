"""The template schema: every variable a grid template may set, as data.

One table (:data:`VARIABLES`, :data:`API_MODEL_KEYS`) gives each variable's name, type,
default, alias, documentation and check. The same table drives validation
(:func:`validate`), the error messages (``<field>: <problem>``, one line) and the README's
tables (:func:`markdown_table`), so the three cannot drift apart.

Pure: no OpenCompass, no mmengine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpassk_oc.argtypes import MAX_SEED
from gpassk_oc.configgen.checks import (
    MAX_OUT_LEN,
    MAX_SEQ_LEN,
    REQUIRED,
    Check,
    TemplateError,
    boolean,
    integer,
    judge_model,
    judge_prompt,
    k_lists,
    list_of,
    number,
    optional,
    suggest,
    text,
    thresholds,
    urls,
    version,
)
from gpassk_oc.configgen.crosscheck import HUB_ID, cross_checks
from gpassk_oc.configgen.model_specs import (
    API_MODEL_KEYS,
    LLM_INFO_KEYS,
    MODEL_KEYS,
    ModelSpec,
    model_list,
    parse_models,
)
from gpassk_oc.configgen.reasoning_settings import REASONING_VARIABLES, validate_reasoning
from gpassk_oc.configgen.settings import Settings
from gpassk_oc.core.data.livemath_data import KNOWN_VERSIONS
from gpassk_oc.core.runs.run_spec import DEFAULT_THRESHOLDS

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
# Upper bounds of the numeric variables: far above any real setting, so a value beyond
# one is a typo (``max_out_len = 10**9``), refused with the bound instead of generated.
MAX_TOP_K = 1_000_000
MAX_REPETITION_PENALTY = 10.0

MAX_WORKERS = 1024


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


VARIABLES: tuple[Var, ...] = (
    Var(
        "llm_infos",
        "list",
        None,
        "TurboMind models: `(path, tensor parallel, batch size)`, optionally a 4th element "
        "`abbr`, or `dict(path=, tp=, batch_size=, abbr=)`",
        model_list,
        default_doc="—",
    ),
    Var(
        "api_models",
        "list[dict]",
        None,
        "OpenAI-compatible models, keys in the next table",
        model_list,
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
        "thresholds",
        "list[float]",
        DEFAULT_THRESHOLDS,  # already exact, as the check returns it
        "τ values of `G-Pass@k_τ`, each in [0, 1] (floats or exact `'1/3'` strings); the "
        "evaluator records them and the report's columns follow them (the default list "
        "shows the paper's τ = 0.5, 0.75, 1.0)",
        thresholds,
        default_doc="`[0.0, 0.25, 0.5, 0.75, 1.0]`",
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
    Var(
        "top_k",
        "int",
        50,
        f"top-k cut-off (-1 = none), at most {MAX_TOP_K:,}",
        integer(-1, MAX_TOP_K, "more than any tokenizer's vocabulary"),
    ),
    Var(
        "repetition_penalty",
        "float",
        1.0,
        f"repetition penalty (1.0 = none), in (0, {MAX_REPETITION_PENALTY:g}]",
        number(0, MAX_REPETITION_PENALTY, True),
    ),
    Var(
        "random_seed",
        "int",
        42,
        "recorded in the names; sent only with `send_random_seed = True`; 0 to 2**32 - 1",
        integer(0, MAX_SEED, "a 32-bit seed, as numpy and the engines take"),
    ),
    Var(
        "send_random_seed",
        "bool",
        False,
        "send the seed to the engine (one fixed seed makes the n samples identical)",
        boolean,
    ),
    Var(
        "max_out_len",
        "int",
        8192,
        f"maximum generated tokens, at most {MAX_OUT_LEN:,}",
        integer(1, MAX_OUT_LEN, "tokens per reply; the longest context windows hold ~1M"),
    ),
    Var(
        "max_seq_len",
        "int",
        None,
        f"context length (TurboMind `session_len`), at most {MAX_SEQ_LEN:,}",
        optional(integer(2, MAX_SEQ_LEN, "tokens; the longest context windows hold ~10M")),
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
        optional(judge_model),
    ),
    Var(
        "eval_prompt",
        "str",
        "auto",
        "judge prompt: `'opencompass'` = LiveMathBench's own (the paper's tables), `'gpassk'`, "
        "or `'auto'` (OpenCompass's for a LiveMath-Judge model, else gpassk's); GPassK-style "
        "templates get `'opencompass'`",
        judge_prompt,
    ),
    Var(
        "max_num_workers",
        "int",
        None,
        f"when set, `infer`/`eval` LocalRunner sections with this many workers (at most "
        f"{MAX_WORKERS:,})",
        optional(integer(1, MAX_WORKERS, "parallel task processes on one machine")),
        default_doc="unset",
    ),
)

BY_NAME: dict[str, Var] = {v.name: v for v in VARIABLES}
ALIASES: dict[str, str] = {v.alias: v.name for v in VARIABLES if v.alias}
#: name -> doc of every accepted variable name (aliases included).
KNOWN_VARIABLES: dict[str, str] = {
    **{v.name: v.doc for v in VARIABLES},
    **{a: f"alias: one item of {p}" for a, p in ALIASES.items()},
    **{
        name: spec[2] for name, spec in REASONING_VARIABLES.items()
    },  # configgen/reasoning_settings.py
}

# ------------------------------------------------------------------------- validate


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


def validate(
    variables: Mapping[str, Any], lines: Mapping[str, Sequence[int]] | None = None
) -> Settings:
    """Check every variable against :data:`VARIABLES` (unknown names, types, ranges, the
    cross-field rules) and return the values with defaults filled in. *lines*: the
    template line of each model entry, named in messages."""
    for name in variables:
        if name not in KNOWN_VARIABLES:
            raise TemplateError(f"unknown variable {name!r}{suggest(name, KNOWN_VARIABLES)}")
    models = parse_models(variables, lines)
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
    specs = cross_checks(values, notes)
    for model in models:  # a model's own lengths, or one of them beside the template's
        out, seq = model.lengths(values["max_out_len"], values["max_seq_len"])
        if seq <= out:
            raise TemplateError(f"max_seq_len {seq} is not above max_out_len = {out}", model.where)
    return Settings.build(models, values, notes, specs)


# ------------------------------------------------------------------------- docs


def _default_text(var: Var) -> str:
    if var.default_doc is not None:
        return var.default_doc
    if var.default is REQUIRED:
        return "required"
    return f"`{var.default!r}`"


def _shown(default: Any) -> str:
    return "required" if default is REQUIRED else ("unset" if default is None else f"`{default!r}`")


def markdown_table() -> str:
    """docs/configgen.md's tables, generated from the schema: every variable (the reasoning
    ones included), the keys of an ``llm_infos`` dict and of an ``api_models`` entry."""
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for var in VARIABLES:
        name = f"`{var.name}`" + (f" (or `{var.alias}`)" if var.alias else "")
        rows.append(f"| {name} | {var.type} | {_default_text(var)} | {var.doc} |")
    for name, (kind, default, doc, _) in REASONING_VARIABLES.items():
        rows.append(f"| `{name}` | {kind} | `{default!r}` | {doc} |")
    rows += ["", "| `llm_infos` dict key | default | meaning |", "|---|---|---|"]
    for key, (default, doc) in LLM_INFO_KEYS.items():
        rows.append(f"| `{key}` | {_shown(default)} | {doc} |")
    rows += ["", "| `api_models` key | default | meaning |", "|---|---|---|"]
    for key, (default, _, doc) in API_MODEL_KEYS.items():
        rows.append(f"| `{key}` | {_shown(default)} | {doc} |")
    for key, (_, doc) in MODEL_KEYS.items():
        rows.append(f"| `{key}` | unset | {doc} |")
    return "\n".join(rows)
