"""The run record: the settings that produced a results file, as recorded facts (pure core).

A results file of schema 3 carries ``record`` (see :class:`RunRecord`): what the model was
asked with (engine kind, every sampling setting actually sent, the output budget), what it
was asked on (dataset version, splits, languages; the k list, τ list and n are the run
spec, kept once in the file's ``run``) and how
the answers were checked (check mode, judge model and prompt version), plus the plugin and
OpenCompass versions. The report and its plots read settings from here only; names are never
parsed for settings.

The model and dataset facts come from OpenCompass config dicts (:func:`model_facts`,
:func:`dataset_facts`): the config generator passes them to the evaluator, and for a
hand-written config the evaluator reads the config OpenCompass dumped into the work dir.

A sampling value is a number, :data:`NOT_SENT` (the config does not send it: the engine's
default applies), or ``None`` (unknown: the record was not written by the evaluator, or
the engine kind is not one this module knows how to read).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ENGINES",
    "LEGACY_SPEC_FIELDS",
    "NOT_SENT",
    "RecordError",
    "RunRecord",
    "SAMPLING_FIELDS",
    "dataset_facts",
    "engine_kind",
    "model_facts",
    "value_text",
]

#: a sampling setting the config does not send (the engine's default applies)
NOT_SENT = "not sent"
ENGINES = ("turbomind", "openai-api", "other")
Engine = Literal["turbomind", "openai-api", "other"]
Sampled = float | int | str | None  # a number, NOT_SENT, or None (unknown)
SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "repetition_penalty", "seed")


class RecordError(ValueError):
    """A record field of the wrong type; the message is one line naming file and field."""


@dataclass(frozen=True)
class RunRecord:
    """One run's settings. ``None`` = not known (see the module docstring)."""

    model_abbr: str
    dataset_abbr: str
    model_path: str | None = None
    engine: Engine | None = None
    temperature: Sampled = None
    top_p: Sampled = None
    top_k: Sampled = None
    repetition_penalty: Sampled = None
    seed: Sampled = None
    max_out_len: int | None = None
    tokenizer_path: str | None = None
    dataset_version: str | None = None
    splits: tuple[str, ...] | None = None
    languages: tuple[str, ...] | None = None
    check: str | None = None
    judge_model: str | None = None
    judge_prompt: str | None = None
    plugin_version: str | None = None
    opencompass_version: str | None = None
    #: where the model/dataset facts came from: 'generator', 'work-dir config' or 'none'
    source: str = "none"

    @property
    def base_model(self) -> str:
        """The model's name for grouping rows and curves: the basename of its path, else
        the abbr."""
        path = (self.model_path or "").rstrip("/")
        return path.rsplit("/", 1)[-1] or self.model_abbr

    @property
    def model(self) -> str:
        """Alias of :attr:`base_model` (what report rows and curves group by)."""
        return self.base_model

    def sampling_key(self) -> tuple[Any, ...]:
        """Everything that makes two runs the same sampling setting except the seed: runs
        equal here are pooled by the report when only their seeds differ."""
        return (
            self.base_model,
            self.model_path,
            self.engine,
            self.temperature,
            self.top_p,
            self.top_k,
            self.repetition_penalty,
            self.max_out_len,
            self.dataset_version,
            self.splits,
            self.languages,
            self.check,
            self.judge_model,
        )

    def unknown(self) -> list[str]:
        """The settings this record does not know (for the report's notes)."""
        names = ("engine",) + SAMPLING_FIELDS + ("max_out_len",)
        return [name for name in names if getattr(self, name) is None]

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for name in ("splits", "languages"):
            if out[name] is not None:
                out[name] = list(out[name])
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "record") -> RunRecord:
        """Read and type-check a record; :class:`RecordError` naming *where* and the field."""
        if not isinstance(data, Mapping):
            raise RecordError(f"{where}: need an object")
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            value = data.get(f.name)
            values[f.name] = _checked(f.name, value, f"{where}.{f.name}")
        if values["model_abbr"] is None or values["dataset_abbr"] is None:
            missing = "model_abbr" if values["model_abbr"] is None else "dataset_abbr"
            raise RecordError(f"{where}.{missing}: need a string")
        if values["source"] is None:
            values["source"] = "none"
        return cls(**values)


_STR = {
    "model_abbr",
    "dataset_abbr",
    "model_path",
    "tokenizer_path",
    "dataset_version",
    "check",
    "judge_model",
    "judge_prompt",
    "plugin_version",
    "opencompass_version",
    "source",
}
_INT = {"max_out_len"}
#: schema-3 record fields that repeated the run spec (``run.n``, ``run.ks``,
#: ``run.thresholds``; replication = n / max(k)): read past, never kept
LEGACY_SPEC_FIELDS = ("ks", "thresholds", "replication", "n")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _checked(name: str, value: Any, where: str) -> Any:
    """*value* of field *name* if its type fits (lists as tuples); RecordError else."""
    if value is None:
        return None
    if name in _STR and isinstance(value, str):
        return value
    if name in _INT and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if name == "engine" and value in ENGINES:
        return value
    if name in SAMPLING_FIELDS and (_is_number(value) or value == NOT_SENT):
        return value
    if name in ("splits", "languages") and isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value):
            return tuple(value)
    allowed = (
        f"one of {', '.join(ENGINES)}"
        if name == "engine"
        else f"a number or {NOT_SENT!r}"
        if name in SAMPLING_FIELDS
        else "a non-negative integer"
        if name in _INT
        else "a list"
        if name in ("splits", "languages")
        else "a string"
    )
    raise RecordError(f"{where}: need {allowed} or null, got {value!r}")


def value_text(value: Sampled) -> str:
    """A recorded setting for tables and labels: ``0.7``, ``not sent`` or ``unknown``."""
    if value is None:
        return "unknown"
    if isinstance(value, str):
        return value
    return f"{value:g}"


# --------------------------------------------------------------------------- from configs
def engine_kind(model_type: Any) -> Engine:
    """The engine of an OpenCompass model config's ``type`` (a class or dotted string)."""
    name = getattr(model_type, "__name__", None) or str(model_type)
    tail = name.rsplit(".", 1)[-1].lower()
    if "turbomind" in tail:
        return "turbomind"
    if "openai" in tail:
        return "openai-api"
    return "other"


def _sent(*sources: Mapping[str, Any], key: str) -> Sampled:
    """The first value of *key* found in *sources*, else NOT_SENT; a value that is not a
    number (e.g. an expression the dump turned into a string) is unknown (None)."""
    for source in sources:
        value = source.get(key)
        if value is not None:
            return value if _is_number(value) else None
    return NOT_SENT


def _count(value: Any) -> int | None:
    """A non-negative int, else None (unknown)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def model_facts(model: Mapping[str, Any]) -> dict[str, Any]:
    """Record fields read from one OpenCompass model config (as dumped: plain data).

    TurboMind reads ``gen_config`` (``do_sample=False`` decodes greedily: temperature 0
    whatever is written beside it); OpenAI-style API models read ``temperature`` and the
    request fields in ``openai_extra_kwargs`` and ``extra_body`` (and gpassk_oc's
    ``OpenAICompatible`` keyword arguments); other engines read ``generation_kwargs``.
    """
    engine = engine_kind(model.get("type"))
    out: dict[str, Any] = {
        "model_abbr": str(model.get("abbr") or ""),
        "model_path": None if model.get("path") is None else str(model["path"]),
        "engine": engine,
        "max_out_len": _count(model.get("max_out_len")),
        "tokenizer_path": model.get("tokenizer_path")
        if isinstance(model.get("tokenizer_path"), str)
        else None,
    }
    if engine == "turbomind":
        gen = _mapping(model.get("gen_config"))
        sources: tuple[Mapping[str, Any], ...] = (gen,)
        seed_key = "random_seed"
        if gen.get("do_sample") is False:
            gen = {**gen, "temperature": 0.0}
            sources = (gen,)
    elif engine == "openai-api":
        extra = _mapping(model.get("openai_extra_kwargs"))
        sources = (
            model,
            extra,
            _mapping(model.get("extra_body")),
            _mapping(extra.get("extra_body")),
        )
        seed_key = "seed"
    else:
        sources = (_mapping(model.get("generation_kwargs")), _mapping(model.get("gen_config")))
        seed_key = "seed"
    for name in ("temperature", "top_p", "top_k", "repetition_penalty"):
        out[name] = _sent(*sources, key=name)
    out["seed"] = _sent(*sources, key=seed_key)
    if engine == "other" and out["seed"] == NOT_SENT:
        out["seed"] = _sent(*sources, key="random_seed")
    return out


def dataset_facts(dataset: Mapping[str, Any]) -> dict[str, Any]:
    """Record fields read from one OpenCompass dataset config: abbr, version, splits,
    languages, and ``max_out_len`` when its inferencer sets one (merge these over
    :func:`model_facts`). Its ``k`` and ``n`` are the run spec's
    (:mod:`gpassk_oc.core.runs.run_spec`), which the evaluator records itself."""

    def strings(value: Any) -> list[str] | None:
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else None

    version = dataset.get("version")
    out: dict[str, Any] = {
        "dataset_abbr": str(dataset.get("abbr") or ""),
        "dataset_version": None if version is None else str(version),
        "splits": strings(dataset.get("dataset_splits")),
        "languages": strings(dataset.get("dataset_languages")),
    }
    # OpenCompass's infer task gives the inferencer the model's max_out_len only when the
    # dataset's inferencer sets none: the dataset's wins
    inferencer = _mapping(_mapping(dataset.get("infer_cfg")).get("inferencer"))
    if _count(inferencer.get("max_out_len")) is not None:
        out["max_out_len"] = inferencer["max_out_len"]
    return out
