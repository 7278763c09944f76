"""Config generator: expand a grid template into one OpenCompass config per grid point.

A *template* is a Python file that declares variables (``llm_infos``, ``temperatures``,
``ks``, ...; see :data:`KNOWN_VARIABLES` and the README ("Config generator")). This module executes
it, validates every value before anything is written, expands the grid
models × temperatures × top_ps × k-lists × replications, and writes one self-contained
config per point, named by :mod:`gpassk_oc.core.naming`::

    deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3.py

The model abbr and the dataset abbr inside the file are the two halves of that name.
Output is deterministic: no timestamps, fixed key order, ``repr`` floats.

GPassK-style templates that build ``models`` and ``datasets`` themselves are accepted too
(one file per model × dataset pair).

Importing this module does not import OpenCompass; GPassK-style templates import
``mmengine`` when they are loaded.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import itertools
import math
import os
import shutil
import sys
import tempfile
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .core.naming import config_stem, dataset_abbr, format_value, model_abbr

__all__ = [
    "TemplateError", "KNOWN_VARIABLES", "API_MODEL_KEYS", "GeneratedConfig",
    "resolve_template", "generate", "write_configs", "add_arguments", "run", "main",
]

TEMPLATES_DIRNAME = "opencompass_config_templates"
DEFAULT_OUTPUT_DIR = "./opencompass_configs"

# Every variable a grid template may set, with its default (None = required or unset).
# Kept as data so that the unknown-variable check, the docs and the tests share one list.
KNOWN_VARIABLES: dict[str, str] = {
    # models
    "llm_infos": "list of (HF path or local dir, tensor parallel, batch size) -> TurboMind",
    "api_models": "list of dicts describing OpenAI-compatible endpoints",
    # grid axes (plural form, or the singular GPassK alias)
    "temperatures": "list of sampling temperatures; 0 means greedy",
    "temperature": "alias: one temperature",
    "top_ps": "list of nucleus-sampling top_p values in (0, 1]",
    "top_p": "alias: one top_p",
    "ks": "list of k-lists, e.g. [[4, 8, 16]]",
    "k": "alias: one k-list (or one int)",
    "replications": "list of replication counts r; n = r * max(k)",
    "replication": "alias: one replication count",
    "n": "alias: samples per question; must be a multiple of max(k) of every k-list",
    # fixed sampling knobs
    "top_k": "top-k cut-off (default 50)",
    "repetition_penalty": "repetition penalty (default 1.0)",
    "random_seed": "seed recorded in the names (default 42); see send_random_seed",
    "send_random_seed": "also send random_seed to the engine (default False)",
    "max_out_len": "maximum generated tokens (default 8192)",
    "max_seq_len": "context length (default max_out_len + 4096)",
    # dataset
    "data_path": "hub id or local directory (default 'opencompass/LiveMathBench')",
    "version": "LiveMathBench version (default '202412')",
    "dataset_splits": "splits (default ['CNMO', 'CCEE', 'AMC', 'WLPMC'])",
    "dataset_languages": "languages (default ['cn', 'en'])",
    "cot": "chain-of-thought prompt (default True)",
    # judge
    "eval_urls": "judge endpoints; empty = rule-based checking (default [])",
    "eval_model_name": "model name served at eval_urls (default None)",
    # runner
    "max_num_workers": "emit infer/eval LocalRunner settings with this many workers",
}

# Keys an entry of ``api_models`` may carry, with their defaults (None = not emitted).
API_MODEL_KEYS: dict[str, Any] = {
    "path": None,              # required: the served model name
    "openai_api_base": None,   # required: URL or list of URLs
    "abbr": None,              # name base; default: basename of path
    "tokenizer_path": None,    # local tokenizer dir (OpenAISDK loads one eagerly)
    "batch_size": 8,
    "query_per_second": 1,
    "retry": 3,
    "timeout": None,
    "send_top_p": True,        # False for endpoints that reject top_p (OpenAI o-series)
    "extra_sampling": False,   # send top_k / repetition_penalty in extra_body
}

_DEFAULTS: dict[str, Any] = {
    "top_k": 50,
    "repetition_penalty": 1.0,
    "random_seed": 42,
    "send_random_seed": False,
    "max_out_len": 8192,
    "data_path": "opencompass/LiveMathBench",
    "version": "202412",
    "dataset_splits": ["CNMO", "CCEE", "AMC", "WLPMC"],
    "dataset_languages": ["cn", "en"],
    "cot": True,
    "eval_urls": [],
    "eval_model_name": None,
    "max_num_workers": None,
}

_ALIASES = {"temperature": "temperatures", "top_p": "top_ps", "k": "ks",
            "replication": "replications"}

# Import paths fixed by the contract with the OpenCompass adapters.
_DATASET_CLS = ("gpassk_oc.datasets", "LiveMathBenchDataset")
_EVALUATOR_CLS = ("gpassk_oc.evaluators", "GPassKEvaluator")
_API_MODEL_CLS = ("gpassk_oc.models", "OpenAICompatible")
_TURBOMIND_CLS = ("opencompass.models", "TurboMindModelwithChatTemplate")
_PROMPT_CLS = ("opencompass.openicl.icl_prompt_template", "PromptTemplate")
_RETRIEVER_CLS = ("opencompass.openicl.icl_retriever", "ZeroRetriever")
_INFERENCER_CLS = ("opencompass.openicl.icl_inferencer", "GenInferencer")
_RUNNER_CLS = ("opencompass.runners", "LocalRunner")
_NUM_WORKER_PART = ("opencompass.partitioners", "NumWorkerPartitioner")
_NAIVE_PART = ("opencompass.partitioners", "NaivePartitioner")
_INFER_TASK = ("opencompass.tasks", "OpenICLInferTask")
_EVAL_TASK = ("opencompass.tasks", "OpenICLEvalTask")

# Field names that may hold credentials; GPassK-style templates sometimes carry literals.
_SECRET_KEYS = {"key", "api_key", "openai_api_key"}
_SAFE_KEY_VALUES = {"ENV", "EMPTY", ""}


class TemplateError(Exception):
    """A template cannot be expanded; the message is one line meant for the user."""


# --------------------------------------------------------------------------- rendering


@dataclass(frozen=True)
class Ref:
    """A class or function referenced by import; rendered as its bare name plus an
    ``from module import name`` line, which OpenCompass's lazy parser turns into a
    dotted string."""

    module: str
    name: str


_WIDTH = 88


def _inline(value: Any) -> str:
    """One-line Python source for *value*."""
    if isinstance(value, Ref):
        return value.name
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TemplateError(f"value {value!r} cannot be written in a config")
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, Mapping):
        if all(isinstance(k, str) and k.isidentifier() for k in value):
            return "dict(" + ", ".join(f"{k}={_inline(v)}" for k, v in value.items()) + ")"
        return "{" + ", ".join(f"{_inline(k)}: {_inline(v)}" for k, v in value.items()) + "}"
    raise TemplateError(f"value of type {type(value).__name__} cannot be written in a "
                        "config (only numbers, strings, lists and dicts survive the dump)")


def _format(value: Any, indent: int, prefix_len: int) -> str:
    """Black-like layout: inline when it fits in the line, else one item per line with a
    trailing comma. *prefix_len* is what precedes the value on its first line."""
    text = _inline(value)
    if indent + prefix_len + len(text) + 1 <= _WIDTH or not isinstance(
            value, (list, tuple, Mapping)) or not value:
        return text
    pad = " " * (indent + 4)
    lines = []
    if isinstance(value, Mapping):
        kwargs = all(isinstance(k, str) and k.isidentifier() for k in value)
        for key, item in value.items():
            head = f"{key}=" if kwargs else f"{_inline(key)}: "
            lines.append(f"{pad}{head}{_format(item, indent + 4, len(head))},")
        opener, closer = ("dict(", ")") if kwargs else ("{", "}")
    else:
        lines = [f"{pad}{_format(item, indent + 4, 0)}," for item in value]
        opener, closer = "[", "]"
    return opener + "\n" + "\n".join(lines) + "\n" + " " * indent + closer


def _collect_refs(value: Any, found: dict[str, Ref]) -> None:
    if isinstance(value, Ref):
        found.setdefault(value.name, value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect_refs(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_refs(item, found)


def _render_file(header: Sequence[str], variables: Sequence[tuple[str, Any]]) -> str:
    """Header comments, sorted imports, then ``name = value`` blocks."""
    refs: dict[str, Ref] = {}
    for _, value in variables:
        _collect_refs(value, refs)
    imports = sorted(f"from {ref.module} import {ref.name}" for ref in refs.values())
    parts = ["\n".join(f"# {line}" for line in header), "\n".join(imports)]
    for name, value in variables:
        parts.append(f"{name} = {_format(value, 0, len(name) + 3)}")
    return "\n\n".join(part for part in parts if part) + "\n"


# --------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class ModelSpec:
    """One model of a template: a TurboMind checkpoint or an OpenAI-compatible endpoint."""

    kind: str                 # 'turbomind' | 'api'
    path: str                 # HF path / local dir, or served model name
    base: str                 # name base written in abbrs and file names
    tp: int = 1
    batch_size: int = 1
    api: tuple[tuple[str, Any], ...] = ()   # validated api_models entry, key order kept

    def api_get(self, key: str) -> Any:
        return dict(self.api).get(key, API_MODEL_KEYS.get(key))


@dataclass(frozen=True)
class GridPoint:
    """One generated config: a model at one sampling setting on one dataset setting."""

    model: ModelSpec
    temperature: float
    top_p: float
    ks: tuple[int, ...]
    replication: int

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    @property
    def n(self) -> int:
        return self.replication * max(self.ks)


@dataclass
class GridTemplate:
    """A validated grid template."""

    name: str
    models: list[ModelSpec]
    temperatures: list[float]
    top_ps: list[float]
    ks: list[tuple[int, ...]]
    replications: list[int] | None
    n: int | None
    settings: dict[str, Any] = field(default_factory=dict)

    def replications_for(self, ks: Sequence[int]) -> list[int]:
        if self.n is not None:
            return [self.n // max(ks)]
        assert self.replications is not None
        return list(self.replications)


@dataclass(frozen=True)
class GeneratedConfig:
    """A file to write: its name (``<stem>.py``) and its full text."""

    name: str
    text: str


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_list(name: str, value: Any) -> list:
    if not isinstance(value, (list, tuple)):
        raise TemplateError(f"{name} must be a list, got {type(value).__name__}")
    if not value:
        raise TemplateError(f"{name} is empty")
    return list(value)


def _no_duplicates(name: str, values: Iterable[Any]) -> None:
    seen: list[Any] = []
    for value in values:
        if value in seen:
            raise TemplateError(f"{name} lists {value!r} twice")
        seen.append(value)


def _suggest(name: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _nameable(what: str, value: float) -> None:
    """Names write floats as their shortest repr; refuse values that would need '1e-05'."""
    try:
        format_value(float(value))
    except ValueError:
        raise TemplateError(f"{what} {value!r} cannot be written in a config name") from None


def _exec_template(path: Path) -> dict[str, Any]:
    """Run the template file and return its namespace; Python errors become one line with
    the template's line number."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"cannot read template: {exc}") from None
    filename = str(path)
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as exc:
        raise TemplateError(f"line {exc.lineno}: {exc.msg}") from None
    namespace: dict[str, Any] = {"__name__": "__gpassk_template__", "__file__": filename}
    try:
        exec(code, namespace)  # noqa: S102 - the template is the user's own config file
    except Exception as exc:  # any Python error in the template is reported, not raised
        line = next((frame.lineno for frame in reversed(traceback.extract_tb(exc.__traceback__))
                     if frame.filename == filename), None)
        where = f"line {line}: " if line else ""
        raise TemplateError(f"{where}{type(exc).__name__}: {exc}") from None
    return namespace


def _data_variables(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """Template variables, without private names, imported modules, classes and functions."""
    skipped = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)
    return {name: value for name, value in namespace.items()
            if not name.startswith("_") and not isinstance(value, skipped)}


def _defines_models_or_datasets(path: Path) -> bool:
    """GPassK-style templates assign ``models``/``datasets`` at top level."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return False  # the normal loader reports the error with its line
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        if any(isinstance(t, ast.Name) and t.id in ("models", "datasets") for t in targets):
            return True
    return False


def _model_base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _parse_llm_infos(value: Any) -> list[ModelSpec]:
    specs = []
    for i, info in enumerate(_as_list("llm_infos", value)):
        if not (isinstance(info, (list, tuple)) and len(info) == 3):
            raise TemplateError(f"llm_infos[{i}] must be (path, tensor parallel, batch size), "
                                f"got {info!r}")
        path, tp, batch_size = info
        if not isinstance(path, str) or not _model_base(path) or not path.isprintable():
            raise TemplateError(f"llm_infos[{i}]: model path must be a non-empty one-line "
                                f"string, got {path!r}")
        if "@" in _model_base(path):  # '@' separates the two halves of a config name
            raise TemplateError(f"llm_infos[{i}]: model basename {_model_base(path)!r} "
                                "contains '@'")
        for what, number in (("tensor parallel", tp), ("batch size", batch_size)):
            if not _is_int(number) or number < 1:
                raise TemplateError(f"llm_infos[{i}] ({path}): {what} must be a positive "
                                    f"integer, got {number!r}")
        specs.append(ModelSpec("turbomind", path, _model_base(path), tp, batch_size))
    return specs


def _parse_api_models(value: Any) -> list[ModelSpec]:
    specs = []
    for i, entry in enumerate(_as_list("api_models", value)):
        if not isinstance(entry, Mapping):
            raise TemplateError(f"api_models[{i}] must be a dict, got {type(entry).__name__}")
        for key in entry:
            if key in _SECRET_KEYS:
                raise TemplateError(f"api_models[{i}] sets {key!r}: generated files never carry "
                                    "keys; export OPENAI_API_KEY instead")
            if key not in API_MODEL_KEYS:
                raise TemplateError(f"api_models[{i}]: unknown key {key!r}"
                                    f"{_suggest(key, API_MODEL_KEYS)}")
        for key in ("path", "openai_api_base"):
            if key not in entry:
                raise TemplateError(f"api_models[{i}] needs {key!r}")
        path = entry["path"]
        if not isinstance(path, str) or not _model_base(path) or not path.isprintable():
            raise TemplateError(f"api_models[{i}]: path must be a non-empty one-line string, "
                                f"got {path!r}")
        bases = entry["openai_api_base"]
        urls = [bases] if isinstance(bases, str) else bases
        if not isinstance(urls, (list, tuple)) or not urls or not all(
                isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls):
            raise TemplateError(f"api_models[{i}] ({path}): openai_api_base must be an http(s) "
                                "URL or a non-empty list of them")
        base = entry.get("abbr") or _model_base(path)
        if not isinstance(base, str) or "/" in base or "@" in base:
            raise TemplateError(f"api_models[{i}] ({path}): abbr must be a string without "
                                f"'/' or '@', got {base!r}")
        for key in ("batch_size", "query_per_second", "retry", "timeout"):
            if key in entry and entry[key] is not None and (
                    not _is_int(entry[key]) or entry[key] < 1):
                raise TemplateError(f"api_models[{i}] ({path}): {key} must be a positive "
                                    f"integer, got {entry[key]!r}")
        for key in ("send_top_p", "extra_sampling"):
            if key in entry and not isinstance(entry[key], bool):
                raise TemplateError(f"api_models[{i}] ({path}): {key} must be True or False")
        if "tokenizer_path" in entry and not isinstance(entry["tokenizer_path"], (str, type(None))):
            raise TemplateError(f"api_models[{i}] ({path}): tokenizer_path must be a string")
        specs.append(ModelSpec("api", path, base,
                               batch_size=entry.get("batch_size") or API_MODEL_KEYS["batch_size"],
                               api=tuple((k, entry[k]) for k in API_MODEL_KEYS if k in entry)))
    return specs


def _pick(variables: dict[str, Any], plural: str) -> tuple[str, Any] | None:
    """The value of a grid axis given either as its plural name or its singular alias."""
    singular = next(s for s, p in _ALIASES.items() if p == plural)
    if plural in variables and singular in variables:
        raise TemplateError(f"set either {singular} or {plural}, not both")
    if plural in variables:
        return plural, variables[plural]
    if singular in variables:
        value = variables[singular]
        if plural == "ks" and _is_int(value):  # GPassK allowed `k = 16`
            value = [value]
        return singular, [value]
    return None


def _parse_grid(name: str, variables: dict[str, Any]) -> GridTemplate:
    for var in variables:
        if var not in KNOWN_VARIABLES:
            raise TemplateError(f"unknown variable {var!r}{_suggest(var, KNOWN_VARIABLES)}")
    settings = {key: variables.get(key, default) for key, default in _DEFAULTS.items()}

    models: list[ModelSpec] = []
    if "llm_infos" not in variables and "api_models" not in variables:
        raise TemplateError("no models: set llm_infos and/or api_models")
    if "llm_infos" in variables:
        models += _parse_llm_infos(variables["llm_infos"])
    if "api_models" in variables:
        models += _parse_api_models(variables["api_models"])
    bases: dict[str, str] = {}
    for spec in models:
        if spec.base in bases:
            raise TemplateError(f"duplicate model {spec.base!r} ({bases[spec.base]} and "
                                f"{spec.path}): their configs would get the same names")
        bases[spec.base] = spec.path

    picked = _pick(variables, "temperatures")
    if picked is None:
        raise TemplateError("missing variable 'temperatures'")
    temperatures = _as_list(picked[0], picked[1])
    for t in temperatures:
        if not _is_number(t):
            raise TemplateError(f"temperature {t!r} is not a number")
        if t < 0:
            raise TemplateError(f"temperature {t!r} is negative (use 0 for greedy)")
        _nameable("temperature", t)
    _no_duplicates("temperatures", [float(t) for t in temperatures])

    picked = _pick(variables, "top_ps")
    top_ps = _as_list(picked[0], picked[1]) if picked else [1.0]
    for p in top_ps:
        if not _is_number(p) or not 0 < p <= 1:
            raise TemplateError(f"top_p {p!r} is not in (0, 1]")
        _nameable("top_p", p)
    _no_duplicates("top_ps", [float(p) for p in top_ps])

    picked = _pick(variables, "ks")
    if picked is None:
        raise TemplateError("missing variable 'ks' (or k)")
    ks: list[tuple[int, ...]] = []
    for k_list in _as_list(picked[0], picked[1]):
        items = _as_list("k-list", k_list) if isinstance(k_list, (list, tuple)) else None
        if items is None or not all(_is_int(k) and k >= 1 for k in items):
            raise TemplateError(f"k-list {k_list!r} must be a list of positive integers")
        if any(b <= a for a, b in zip(items, items[1:])):
            raise TemplateError(f"k-list {list(items)} must be strictly increasing")
        ks.append(tuple(items))
    _no_duplicates(picked[0], ks)

    n = variables.get("n")
    replications: list[int] | None = None
    picked = _pick(variables, "replications")
    if n is not None and picked is not None:
        raise TemplateError(f"set either n or {picked[0]}, not both")
    if n is not None:
        if not _is_int(n) or n < 1:
            raise TemplateError(f"n must be a positive integer, got {n!r}")
        for k_list in ks:
            if max(k_list) > n:
                raise TemplateError(f"k = {max(k_list)} > n = {n}")
            if n % max(k_list):
                raise TemplateError(f"n = {n} is not a multiple of max(k) = {max(k_list)}")
    elif picked is not None:
        replications = _as_list(picked[0], picked[1])
        for r in replications:
            if not _is_int(r) or r < 1:
                raise TemplateError(f"replication {r!r} must be a positive integer")
        _no_duplicates(picked[0], replications)
    else:
        raise TemplateError("missing variable 'replications' (or n)")

    _check_settings(settings, variables)
    return GridTemplate(name, models, [float(t) for t in temperatures],
                        [float(p) for p in top_ps], ks, replications, n, settings)


def _check_settings(s: dict[str, Any], variables: Mapping[str, Any]) -> None:
    if not _is_int(s["top_k"]):
        raise TemplateError(f"top_k must be an integer, got {s['top_k']!r}")
    if not _is_number(s["repetition_penalty"]) or s["repetition_penalty"] <= 0:
        raise TemplateError(f"repetition_penalty must be a positive number, got "
                            f"{s['repetition_penalty']!r}")
    _nameable("repetition_penalty", s["repetition_penalty"])
    if not _is_int(s["random_seed"]):
        raise TemplateError(f"random_seed must be an integer, got {s['random_seed']!r}")
    if not isinstance(s["send_random_seed"], bool):
        raise TemplateError("send_random_seed must be True or False")
    if not _is_int(s["max_out_len"]) or s["max_out_len"] < 1:
        raise TemplateError(f"max_out_len must be a positive integer, got {s['max_out_len']!r}")
    max_seq_len = variables.get("max_seq_len", s["max_out_len"] + 4096)
    if not _is_int(max_seq_len) or max_seq_len <= s["max_out_len"]:
        raise TemplateError(f"max_seq_len must be an integer above max_out_len = "
                            f"{s['max_out_len']}, got {max_seq_len!r}")
    s["max_seq_len"] = max_seq_len
    for key in ("data_path", "version"):
        if not isinstance(s[key], str) or not s[key]:
            raise TemplateError(f"{key} must be a non-empty string, got {s[key]!r}")
    if not s["version"].isalnum():
        raise TemplateError(f"version {s['version']!r} must be letters and digits only")
    for key in ("dataset_splits", "dataset_languages"):
        values = _as_list(key, s[key])
        if not all(isinstance(v, str) and v for v in values):
            raise TemplateError(f"{key} must be a list of non-empty strings")
        _no_duplicates(key, values)
    if not isinstance(s["cot"], bool):
        raise TemplateError("cot must be True or False")
    urls = s["eval_urls"]
    if not isinstance(urls, (list, tuple)) or not all(
            isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls):
        raise TemplateError("eval_urls must be a list of http(s) URLs")
    judge = s["eval_model_name"]
    if judge is not None and (not isinstance(judge, str) or not judge):
        raise TemplateError(f"eval_model_name must be a non-empty string, got {judge!r}")
    if judge and not urls:
        raise TemplateError(f"judge model {judge!r} set but eval_urls is empty (set the "
                            "judge URLs, or remove eval_model_name for rule-based checking)")
    if urls and not judge:
        raise TemplateError("eval_urls set but eval_model_name is not")
    workers = s["max_num_workers"]
    if workers is not None and (not _is_int(workers) or workers < 1):
        raise TemplateError(f"max_num_workers must be a positive integer, got {workers!r}")


def expand(template: GridTemplate) -> list[GridPoint]:
    """Grid points in template order. Temperature 0 is greedy: one point per model with
    k=[1], n=1 (the paper's "Greedy" column), named with the first top_p."""
    points = []
    for spec in template.models:
        for t in template.temperatures:
            if t == 0:
                points.append(GridPoint(spec, t, template.top_ps[0], (1,), 1))
                continue
            for p, ks in itertools.product(template.top_ps, template.ks):
                for r in template.replications_for(ks):
                    points.append(GridPoint(spec, t, p, ks, r))
    return points


def _names(template: GridTemplate, point: GridPoint) -> tuple[str, str]:
    s = template.settings
    model_part = model_abbr(point.model.base, point.temperature, point.top_p, s["top_k"],
                            s["repetition_penalty"], s["random_seed"], s["max_out_len"])
    return model_part, dataset_abbr(s["version"], point.ks, point.replication)


def _model_cfg(template: GridTemplate, point: GridPoint, abbr: str) -> tuple[dict, list[str]]:
    """Model config dict, and the sampling knobs it passes to the model."""
    s, spec = template.settings, point.model
    if spec.kind == "turbomind":
        gen_config: dict[str, Any] = dict(
            do_sample=not point.greedy,  # TurboMind samples only with do_sample=True
            temperature=point.temperature,
            top_p=point.top_p,
            top_k=s["top_k"],
            repetition_penalty=float(s["repetition_penalty"]),
        )
        if s["send_random_seed"]:
            gen_config["random_seed"] = s["random_seed"]
        gen_config["max_new_tokens"] = s["max_out_len"]
        cfg = dict(
            type=Ref(*_TURBOMIND_CLS),
            abbr=abbr,
            path=spec.path,
            engine_config=dict(session_len=s["max_seq_len"], max_batch_size=spec.batch_size,
                               tp=spec.tp),
            gen_config=gen_config,
            max_seq_len=s["max_seq_len"],
            max_out_len=s["max_out_len"],
            batch_size=spec.batch_size,
            run_cfg=dict(num_gpus=spec.tp),
        )
        sent = ["do_sample=False (greedy)"] if point.greedy else [
            "temperature", "top_p", "top_k", "repetition_penalty"]
        if s["send_random_seed"]:
            sent.append("random_seed")
        return cfg, sent

    bases = spec.api_get("openai_api_base")
    cfg = dict(type=Ref(*_API_MODEL_CLS), abbr=abbr, path=spec.path,
               openai_api_base=list(bases) if isinstance(bases, (list, tuple)) else bases,
               key="ENV")  # OpenAISDK reads OPENAI_API_KEY; files never carry keys
    if spec.api_get("tokenizer_path"):
        cfg["tokenizer_path"] = spec.api_get("tokenizer_path")
    cfg["temperature"] = point.temperature
    sent = ["temperature"]
    extra_kwargs: dict[str, Any] = {}
    if not point.greedy and spec.api_get("send_top_p"):
        extra_kwargs["top_p"] = point.top_p
    if s["send_random_seed"]:
        extra_kwargs["seed"] = s["random_seed"]
    if extra_kwargs:
        cfg["openai_extra_kwargs"] = extra_kwargs  # merged into each chat.completions call
        sent += list(extra_kwargs)
    if not point.greedy and spec.api_get("extra_sampling"):
        cfg["extra_body"] = dict(top_k=s["top_k"],
                                 repetition_penalty=float(s["repetition_penalty"]))
        sent += ["top_k", "repetition_penalty"]
    cfg.update(max_out_len=s["max_out_len"], max_seq_len=s["max_seq_len"],
               batch_size=spec.batch_size, query_per_second=spec.api_get("query_per_second"),
               retry=spec.api_get("retry"))
    if spec.api_get("timeout"):
        cfg["timeout"] = spec.api_get("timeout")
    cfg["run_cfg"] = dict(num_gpus=0)
    return cfg, sent


def _dataset_cfg(template: GridTemplate, point: GridPoint, abbr: str) -> dict:
    s = template.settings
    evaluator: dict[str, Any] = dict(type=Ref(*_EVALUATOR_CLS), k=list(point.ks))
    if s["eval_urls"]:
        evaluator["judge"] = dict(urls=list(s["eval_urls"]), model=s["eval_model_name"])
    return dict(
        type=Ref(*_DATASET_CLS),
        abbr=abbr,
        path=s["data_path"],
        version=s["version"],
        dataset_splits=list(s["dataset_splits"]),
        dataset_languages=list(s["dataset_languages"]),
        cot=s["cot"],
        k=list(point.ks),
        n=point.n,
        reader_cfg=dict(input_columns=["prompt"], output_column="answer"),
        infer_cfg=dict(
            prompt_template=dict(type=Ref(*_PROMPT_CLS),
                                 template=dict(round=[dict(role="HUMAN", prompt="{prompt}")])),
            retriever=dict(type=Ref(*_RETRIEVER_CLS)),
            inferencer=dict(type=Ref(*_INFERENCER_CLS)),
        ),
        eval_cfg=dict(evaluator=evaluator),
    )


def _runner_variables(workers: int | None) -> list[tuple[str, Any]]:
    """infer/eval sections only when the template asks; otherwise OpenCompass's CLI fills
    in its LocalRunner defaults (and honours --max-num-workers)."""
    if workers is None:
        return []
    return [
        ("infer", dict(partitioner=dict(type=Ref(*_NUM_WORKER_PART), num_worker=workers),
                       runner=dict(type=Ref(*_RUNNER_CLS), max_num_workers=workers,
                                   task=dict(type=Ref(*_INFER_TASK))))),
        ("eval", dict(partitioner=dict(type=Ref(*_NAIVE_PART)),
                      runner=dict(type=Ref(*_RUNNER_CLS), max_num_workers=workers,
                                  task=dict(type=Ref(*_EVAL_TASK))))),
    ]


def _render_point(template: GridTemplate, point: GridPoint) -> GeneratedConfig:
    model_part, dataset_part = _names(template, point)
    model_cfg, sent = _model_cfg(template, point, model_part)
    dataset_cfg = _dataset_cfg(template, point, dataset_part)
    s = template.settings
    setting = ("greedy (temperature 0, k=[1], n=1)" if point.greedy else
               f"temperature={point.temperature!r} top_p={point.top_p!r} k={list(point.ks)} "
               f"replication={point.replication} (n={point.n})")
    header = [
        f"Generated by `gpassk-oc dump` from template {template.name}.",
        "Edit the template and re-run instead of editing this file.",
        f"Model: {point.model.path} ("
        + (f"TurboMind, tp={point.model.tp})" if point.model.kind == "turbomind"
           else "OpenAI-compatible API)"),
        f"Grid point: {setting}",
        f"Sampling knobs passed to the model: {', '.join(sent)}.",
        "Judge: " + (f"{s['eval_model_name']} at {len(s['eval_urls'])} URL(s)."
                     if s["eval_urls"] else "none (rule-based checking)."),
        "Run with: opencompass THIS_FILE -w OUTPUT_DIR",
    ]
    text = _render_file(header, [("models", [model_cfg]), ("datasets", [dataset_cfg])]
                        + _runner_variables(s["max_num_workers"]))
    return GeneratedConfig(config_stem(model_part, dataset_part) + ".py", text)


# --------------------------------------------------------------------- GPassK-style


def _to_refs(value: Any, key: str | None = None) -> Any:
    """Plain data with ``type`` values turned back into imports: dotted strings (what
    mmengine's lazy loader yields) and class/function objects (non-lazy loading)."""
    if isinstance(value, Mapping):
        return {k: _to_refs(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_refs(v) for v in value]
    if key == "type":
        if isinstance(value, str) and "." in value:
            module, _, name = value.rpartition(".")
            if all(part.isidentifier() for part in value.split(".")):
                return Ref(module, name)
        if isinstance(value, (type, types.FunctionType)):
            return Ref(value.__module__, value.__qualname__)
    return value


def _dedupe_refs(value: Any, chosen: dict[str, Ref]) -> Any:
    """Two different classes with the same name cannot both be imported bare: keep the
    first as an import, the others as dotted strings (OpenCompass accepts both)."""
    if isinstance(value, Ref):
        first = chosen.setdefault(value.name, value)
        return value if first == value else f"{value.module}.{value.name}"
    if isinstance(value, Mapping):
        return {k: _dedupe_refs(v, chosen) for k, v in value.items()}
    if isinstance(value, list):
        return [_dedupe_refs(v, chosen) for v in value]
    return value


def _strip_secrets(value: Any, warnings: list[str], where: str) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if k in _SECRET_KEYS and isinstance(v, str) and v not in _SAFE_KEY_VALUES:
                warnings.append(f"{where}: {k!r} replaced by 'ENV' (keys come from "
                                "OPENAI_API_KEY, never from generated files)")
                v = "ENV"
            out[k] = _strip_secrets(v, warnings, where)
        return out
    if isinstance(value, list):
        return [_strip_secrets(v, warnings, where) for v in value]
    return value


def _legacy_configs(path: Path, name: str,
                    warnings: list[str]) -> list[GeneratedConfig]:
    """GPassK-style template: one file per (model, dataset) pair, as GPassK did, with '.'
    in abbrs written '-' and the abbrs set to the two halves of the file name."""
    try:
        from mmengine.config import Config
    except ImportError as exc:  # pragma: no cover - mmengine comes with opencompass
        raise TemplateError(f"GPassK-style templates need mmengine: {exc}") from None
    try:
        cfg = Config.fromfile(str(path), format_python_code=False).to_dict()
    except SyntaxError as exc:
        raise TemplateError(f"line {exc.lineno}: {exc.msg}") from None
    except Exception as exc:
        raise TemplateError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from None
    lists = {}
    for key in ("models", "datasets"):
        items = cfg.get(key)
        if not isinstance(items, list) or not items:
            raise TemplateError(f"{key} must be a non-empty list")
        for i, item in enumerate(items):
            if not isinstance(item, Mapping) or not isinstance(item.get("abbr"), str):
                raise TemplateError(f"{key}[{i}] must be a dict with a string 'abbr'")
        lists[key] = items
    out: list[GeneratedConfig] = []
    seen: set[str] = set()
    for model, dataset in itertools.product(lists["models"], lists["datasets"]):
        model_part = model["abbr"].replace(".", "-")
        dataset_part = dataset["abbr"].replace(".", "-")
        stem = config_stem(model_part, dataset_part)
        if "/" in stem:
            raise TemplateError(f"abbr {stem!r} contains '/'")
        if stem in seen:
            raise TemplateError(f"duplicate config name {stem!r}: two model/dataset pairs "
                                "have the same abbrs")
        seen.add(stem)
        model = _strip_secrets(dict(model, abbr=model_part), warnings, model_part)
        dataset = _strip_secrets(dict(dataset, abbr=dataset_part), warnings, dataset_part)
        chosen: dict[str, Ref] = {}
        variables = [("models", _dedupe_refs([_to_refs(model)], chosen)),
                     ("datasets", _dedupe_refs([_to_refs(dataset)], chosen))]
        header = [
            f"Generated by `gpassk-oc dump` from GPassK-style template {name}.",
            "Edit the template and re-run instead of editing this file.",
            f"Pair: model {model_part} x dataset {dataset_part}",
            "Run with: opencompass THIS_FILE -w OUTPUT_DIR",
        ]
        out.append(GeneratedConfig(stem + ".py", _render_file(header, variables)))
    return out


# --------------------------------------------------------------------------- public API


def _repo_templates_dir() -> Path:
    return Path(__file__).resolve().parent.parent / TEMPLATES_DIRNAME


def _packaged_templates_dir() -> Path:
    return Path(__file__).resolve().parent / "templates"


def resolve_template(name_or_path: str | os.PathLike[str],
                     cwd: str | os.PathLike[str] | None = None) -> Path:
    """Find a template: as given (relative to *cwd*), then in the repository's
    ``opencompass_config_templates/`` next to the package (editable installs), then in a
    packaged copy (``gpassk_oc/templates/``). A missing '.py' suffix is added."""
    raw = Path(name_or_path)
    names = [raw] if raw.suffix == ".py" else [raw, raw.with_name(raw.name + ".py")]
    base = Path(cwd) if cwd is not None else Path.cwd()
    candidates: list[Path] = []
    for candidate in names:
        candidates.append(candidate if candidate.is_absolute() else base / candidate)
    if not raw.is_absolute():
        for root in (_repo_templates_dir(), _repo_templates_dir().parent,
                     _packaged_templates_dir()):
            for candidate in names:
                candidates.append(root / candidate)
                candidates.append(root / candidate.name)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    available = sorted(p.name for d in (_repo_templates_dir(), _packaged_templates_dir())
                       if d.is_dir() for p in d.glob("*.py"))
    hint = f" (available: {', '.join(available)})" if available else ""
    raise TemplateError(f"template not found in the current directory, "
                        f"{TEMPLATES_DIRNAME}/ or the package{hint}")


def load_template(path: str | os.PathLike[str], name: str | None = None) -> GridTemplate:
    """Execute and validate a grid template (not a GPassK-style one)."""
    path = Path(path)
    name = name or path.name
    return _parse_grid(name, _data_variables(_exec_template(path)))


def generate(path: str | os.PathLike[str], name: str | None = None,
             warnings: list[str] | None = None) -> list[GeneratedConfig]:
    """All configs of a template, in grid order, fully rendered; raises TemplateError
    before anything could be written. *name* is what headers show (default: file name);
    notices about GPassK-style templates are appended to *warnings*."""
    path = Path(path)
    name = name or path.name
    warnings = [] if warnings is None else warnings
    if _defines_models_or_datasets(path):
        return _legacy_configs(path, name, warnings)
    template = load_template(path, name)
    configs = [_render_point(template, point) for point in expand(template)]
    seen: set[str] = set()
    for config in configs:  # distinct grid values always give distinct names; be sure
        if config.name in seen:
            raise TemplateError(f"duplicate config name {config.name!r}")
        seen.add(config.name)
    return configs


def write_configs(configs: Sequence[GeneratedConfig],
                  output_dir: str | os.PathLike[str]) -> list[Path]:
    """Write all files into a temporary directory next to *output_dir*, then move them in,
    so an interrupted run never leaves a half-written config. Existing files with other
    names are left alone; files with the same names are replaced."""
    out = Path(output_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        for config in configs:
            with open(staging / config.name, "w", encoding="utf-8", newline="\n") as f:
                f.write(config.text)
        if not out.exists():
            # mkdtemp makes a 0700 directory; give the final one the usual permissions
            umask = os.umask(0)
            os.umask(umask)
            staging.chmod(0o777 & ~umask)
            staging.rename(out)
        else:
            for config in configs:
                os.replace(staging / config.name, out / config.name)
            staging.rmdir()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [out / config.name for config in configs]


# --------------------------------------------------------------------------------- CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``gpassk-oc dump`` / ``dump_opencompass_configs.py``."""
    parser.add_argument("-tc", "--config_template_file", "--config-template-file",
                        dest="config_template_file", required=True, metavar="TEMPLATE",
                        help="template path, or a bare name such as nono1.py looked up in "
                             f"{TEMPLATES_DIRNAME}/")
    parser.add_argument("-o", "--output-dir", "--output_dir", dest="output_dir",
                        default=DEFAULT_OUTPUT_DIR,
                        help=f"where configs are written (default {DEFAULT_OUTPUT_DIR})")
    parser.add_argument("--dry-run", "--dry_run", dest="dry_run", action="store_true",
                        help="list the file names without writing anything")


def run(args: argparse.Namespace) -> int:
    """Expand the template; 0 on success, 2 on a template error, 1 on a write error."""
    display = Path(args.config_template_file).name
    warnings: list[str] = []
    try:
        path = resolve_template(args.config_template_file)
        display = path.name  # 'nono1' given, 'nono1.py' found: name the file
        configs = generate(path, display, warnings)
    except TemplateError as exc:
        print(f"error: {display}: {exc}", file=sys.stderr)
        return 2
    for warning in dict.fromkeys(warnings):
        print(f"warning: {display}: {warning}", file=sys.stderr)
    if args.dry_run:
        for config in configs:
            print(config.name)
        print(f"{len(configs)} config(s) from {display} (dry run, nothing written)")
        return 0
    try:
        written = write_configs(configs, args.output_dir)
    except OSError as exc:
        print(f"error: {args.output_dir}: {exc}", file=sys.stderr)
        return 1
    for target in written:
        print(os.path.join(args.output_dir, target.name))
    print(f"{len(written)} config(s) from {display} written to {args.output_dir}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dump_opencompass_configs.py``."""
    parser = argparse.ArgumentParser(
        prog="dump_opencompass_configs.py",
        description="Expand a template into one OpenCompass config per grid point.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
