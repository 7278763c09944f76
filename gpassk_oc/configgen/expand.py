"""Expand validated settings into config *data*: one :class:`ConfigData` per grid point,
and one grid config that runs them all in a single OpenCompass invocation.

Names come from :mod:`gpassk_oc.core.data.naming`; text is made only by :mod:`.render`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpassk_oc.configgen.reasoning_settings import api_model_settings, evaluator_settings
from gpassk_oc.configgen.render import Ref, plain, render_file
from gpassk_oc.configgen.schema import ModelSpec, Settings, TemplateError
from gpassk_oc.core.data.naming import config_stem, dataset_abbr, model_abbr
from gpassk_oc.core.runs.run_record import dataset_facts, model_facts
from gpassk_oc.core.runs.run_spec import RunSpec

__all__ = ["GridPoint", "ConfigData", "expand", "point_config", "grid_config", "grid_stem"]

# Import paths fixed by the contract with the OpenCompass adapters.
DATASET = Ref("gpassk_oc.datasets", "LiveMathBenchDataset")
EVALUATOR = Ref("gpassk_oc.evaluators", "GPassKEvaluator")
API_MODEL = Ref("gpassk_oc.models", "OpenAICompatible")
TURBOMIND = Ref("opencompass.models", "TurboMindModelwithChatTemplate")
_PROMPT = Ref("opencompass.openicl.icl_prompt_template", "PromptTemplate")
_RETRIEVER = Ref("opencompass.openicl.icl_retriever", "ZeroRetriever")
_INFERENCER = Ref("opencompass.openicl.icl_inferencer", "GenInferencer")
_RUNNER = Ref("opencompass.runners", "LocalRunner")
_NUM_WORKER_PART = Ref("opencompass.partitioners", "NumWorkerPartitioner")
_NAIVE_PART = Ref("opencompass.partitioners", "NaivePartitioner")
_INFER_TASK = Ref("opencompass.tasks", "OpenICLInferTask")
_EVAL_TASK = Ref("opencompass.tasks", "OpenICLEvalTask")


@dataclass(frozen=True)
class GridPoint:
    """One generated config: a model at one sampling setting on one dataset setting."""

    model: ModelSpec
    temperature: float
    top_p: float
    spec: RunSpec  # k list, τ list, n (replication = n / max(k))

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    @property
    def ks(self) -> tuple[int, ...]:
        return self.spec.ks

    @property
    def n(self) -> int:
        return int(self.spec.n or 0)

    @property
    def replication(self) -> int:
        return int(self.spec.replication or 0)


@dataclass(frozen=True)
class ConfigData:
    """One config file as data: its stem, header lines and top-level variables
    (``models``, ``datasets``, optionally ``model_dataset_combinations``, ``infer``,
    ``eval``) with classes as :class:`Ref`. ``text`` renders it; ``data`` is what
    OpenCompass sees after parsing the file (classes as dotted strings)."""

    stem: str
    header: tuple[str, ...]
    variables: dict[str, Any] = field(hash=False)

    @property
    def name(self) -> str:
        return self.stem + ".py"

    @property
    def text(self) -> str:
        return render_file(self.header, self.variables)

    @property
    def data(self) -> dict[str, Any]:
        return plain(self.variables)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """(model abbr, dataset abbr) of every results file the config produces."""
        combos = self.variables.get("model_dataset_combinations") or [
            dict(models=self.variables["models"], datasets=self.variables["datasets"])
        ]
        return [(m["abbr"], d["abbr"]) for c in combos for m in c["models"] for d in c["datasets"]]


def expand(s: Settings) -> list[GridPoint]:
    """Grid points in template order. Temperature 0 is greedy: one point per model with
    k=[1], n=1 (the paper's "Greedy" column), named with the first top_p."""

    greedy = RunSpec((1,), s.thresholds, 1)  # the paper's "Greedy" column: k = 1, n = 1
    points = []
    for model in s.models:
        for t in s.temperatures:
            if t == 0:
                points.append(GridPoint(model, t, s.top_ps[0], greedy))
                continue
            for p, spec in itertools.product(s.top_ps, s.specs):
                points.append(GridPoint(model, t, p, spec))
    return points


def _names(s: Settings, point: GridPoint) -> tuple[str, str]:
    max_out_len, _ = point.model.lengths(s.max_out_len, s.max_seq_len)
    model_part = model_abbr(
        point.model.base,
        point.temperature,
        point.top_p,
        s.top_k,
        s.repetition_penalty,
        s.random_seed,
        max_out_len,
    )
    judge = s.eval_model_name if s.eval_urls else None
    dataset_part = dataset_abbr(
        s.version,
        point.ks,
        point.replication,
        judge=judge,
        splits=s.dataset_splits,
        languages=s.dataset_languages,
        cot=s.cot,
    )
    return model_part, dataset_part


def _turbomind(s: Settings, point: GridPoint, abbr: str) -> tuple[dict, list[str]]:
    spec = point.model
    max_out_len, max_seq_len = spec.lengths(s.max_out_len, s.max_seq_len)
    gen_config: dict[str, Any] = dict(
        do_sample=not point.greedy,  # TurboMind samples only with do_sample=True
        temperature=point.temperature,
        top_p=point.top_p,
        top_k=s.top_k,
        repetition_penalty=s.repetition_penalty,
    )
    if s.send_random_seed:
        gen_config["random_seed"] = s.random_seed
    gen_config["max_new_tokens"] = max_out_len
    engine_config = dict(
        session_len=max_seq_len,
        max_batch_size=spec.batch_size,
        tp=spec.tp,
        enable_prefix_caching=s.enable_prefix_caching,
    )
    cfg = dict(
        type=TURBOMIND,
        abbr=abbr,
        path=spec.path,
        engine_config=engine_config,
        gen_config=gen_config,
        max_seq_len=max_seq_len,
        max_out_len=max_out_len,
        batch_size=spec.batch_size,
        run_cfg=dict(num_gpus=spec.tp),
    )
    sent = (
        ["do_sample=False (greedy)"]
        if point.greedy
        else ["do_sample=True", "temperature", "top_p", "top_k", "repetition_penalty"]
    )
    return cfg, sent + (["random_seed"] if s.send_random_seed else [])


def _api(s: Settings, point: GridPoint, abbr: str) -> tuple[dict, list[str]]:
    spec = point.model
    cfg: dict[str, Any] = dict(
        type=API_MODEL,
        abbr=abbr,
        path=spec.path,
        openai_api_base=spec.api_get("openai_api_base"),
        key="ENV",
    )  # OPENAI_API_KEY; files never carry keys
    if spec.api_get("tokenizer_path"):
        cfg["tokenizer_path"] = spec.api_get("tokenizer_path")
    cfg["temperature"] = point.temperature
    sent = ["temperature"]
    extra: dict[str, Any] = {}
    if not point.greedy and spec.api_get("send_top_p"):
        extra["top_p"] = point.top_p
    if s.send_random_seed:
        extra["seed"] = s.random_seed
    if extra:
        cfg["openai_extra_kwargs"] = extra  # merged into each chat.completions call
        sent += list(extra)
    if not point.greedy and spec.api_get("extra_sampling"):
        cfg["extra_body"] = dict(top_k=s.top_k, repetition_penalty=s.repetition_penalty)
        sent += ["top_k", "repetition_penalty"]
    max_out_len, max_seq_len = spec.lengths(s.max_out_len, s.max_seq_len)
    cfg.update(
        max_out_len=max_out_len,
        max_seq_len=max_seq_len,
        batch_size=spec.batch_size,
        query_per_second=spec.api_get("query_per_second"),
        retry=spec.api_get("retry"),
    )
    if spec.api_get("timeout"):
        cfg["timeout"] = spec.api_get("timeout")
    # think_tag, only when not '</think>'
    cfg.update(api_model_settings(spec.get("think_tags", s.think_tags)))
    cfg["run_cfg"] = dict(num_gpus=0)
    return cfg, sent


def _dataset(s: Settings, point: GridPoint, abbr: str) -> dict:
    evaluator: dict[str, Any] = dict(type=EVALUATOR, k=list(point.ks))
    if not point.spec.default_thresholds:  # configs of the default τ list stay as they were
        evaluator["thresholds"] = point.spec.threshold_values()
    if s.eval_urls:
        evaluator["judge"] = dict(urls=list(s.eval_urls), model=s.eval_model_name)
        if s.eval_prompt != "auto":
            evaluator["judge"]["prompt"] = s.eval_prompt
    evaluator.update(
        evaluator_settings(
            s.reasoning, point.model.get("think_tags", s.think_tags), point.model.get("reasoning")
        )
    )
    return dict(
        type=DATASET,
        abbr=abbr,
        path=s.data_path,
        version=s.version,
        dataset_splits=list(s.dataset_splits),
        dataset_languages=list(s.dataset_languages),
        cot=s.cot,
        k=list(point.ks),
        n=point.n,
        reader_cfg=dict(input_columns=["prompt"], output_column="answer"),
        infer_cfg=dict(
            prompt_template=dict(
                type=_PROMPT, template=dict(round=[dict(role="HUMAN", prompt="{prompt}")])
            ),
            retriever=dict(type=_RETRIEVER),
            inferencer=dict(type=_INFERENCER),
        ),
        eval_cfg=dict(evaluator=evaluator),
    )


def _runners(workers: int | None) -> dict[str, Any]:
    """infer/eval sections only when the template asks; otherwise OpenCompass's CLI fills
    in its defaults (and honours --max-num-workers, --slurm)."""
    if workers is None:
        return {}
    return dict(
        infer=dict(
            partitioner=dict(type=_NUM_WORKER_PART, num_worker=workers),
            runner=dict(type=_RUNNER, max_num_workers=workers, task=dict(type=_INFER_TASK)),
        ),
        eval=dict(
            partitioner=dict(type=_NAIVE_PART),
            runner=dict(type=_RUNNER, max_num_workers=workers, task=dict(type=_EVAL_TASK)),
        ),
    )


def point_config(
    s: Settings, point: GridPoint, template_name: str, notes: Sequence[str] = ()
) -> ConfigData:
    """The config of one grid point; *notes* are extra header lines (what a rewrite of a
    GPassK-style template changed, or which values a caller overrode)."""
    model_part, dataset_part = _names(s, point)
    turbomind = point.model.kind == "turbomind"
    model, sent = (_turbomind if turbomind else _api)(s, point, model_part)
    setting = (
        "greedy (temperature 0, k=[1], n=1)"
        if point.greedy
        else f"temperature={point.temperature!r} top_p={point.top_p!r} k={list(point.ks)} "
        f"replication={point.replication} (n={point.n})"
    )
    header = [
        f"Generated by `gpassk-oc dump` from template {template_name}.",
        "Edit the template and re-run instead of editing this file.",
        *notes,
        f"Model: {point.model.path} ("
        + (f"TurboMind, tp={point.model.tp})" if turbomind else "OpenAI-compatible API)"),
        f"Grid point: {setting}",
        f"Sampling knobs passed to the model: {', '.join(sent)}; random_seed is "
        + (
            "sent."
            if s.send_random_seed
            else "not sent (one fixed seed would make the n samples identical)."
        ),
    ]
    if turbomind:
        header.append(
            f"TurboMind enable_prefix_caching={s.enable_prefix_caching}: every prompt is "
            "sent n times, so its KV cache is reused (template knob enable_prefix_caching)."
        )
    header += [
        "Judge: "
        + (
            f"{s.eval_model_name} at {len(s.eval_urls)} URL(s)."
            if s.eval_urls
            else "none (rule-based checking)."
        ),
        "Run with: opencompass THIS_FILE -w OUTPUT_DIR",
    ]
    dataset = _dataset(s, point, dataset_part)
    # the run record: the evaluator writes these facts into the results file (schema 3);
    # read from the config data by the same code that reads a hand-written config's dump
    dataset["eval_cfg"]["evaluator"]["run_record"] = {
        **model_facts(plain(model)),
        **dataset_facts(plain(dataset)),
    }
    variables = dict(
        models=[model],
        datasets=[dataset],
        **_runners(s.max_num_workers),
    )
    return ConfigData(config_stem(model_part, dataset_part), tuple(header), variables)


def grid_stem(template_name: str) -> str:
    """``grid_<template stem>``: the file name of a template's grid config."""
    stem = template_name[:-3] if template_name.endswith(".py") else template_name
    return f"grid_{stem}"


def grid_config(template_name: str, configs: Sequence[ConfigData]) -> ConfigData:
    """One config running every grid point in a single OpenCompass invocation: all models
    and datasets, and ``model_dataset_combinations`` pairing each model only with the
    datasets of its own grid points. Runner sections are those of the point configs."""
    if not configs:
        raise TemplateError("the grid is empty")
    models: list[dict] = []
    datasets: list[dict] = []
    by_model: dict[str, tuple[dict, list[dict]]] = {}
    for config in configs:
        (model,), (dataset,) = config.variables["models"], config.variables["datasets"]
        if model["abbr"] not in by_model:
            models.append(model)
            by_model[model["abbr"]] = (model, [])
        if dataset["abbr"] not in {d["abbr"] for d in datasets}:
            # a dataset shared by several models: its run_record names the first one; the
            # evaluator uses it only for that model and reads the others' from the work dir
            datasets.append(dataset)
        by_model[model["abbr"]][1].append(dataset)
    combos = [dict(models=[model], datasets=list(ds)) for model, ds in by_model.values()]
    header = (
        f"Generated by `gpassk-oc dump --grid` from template {template_name}.",
        "Edit the template and re-run instead of editing this file.",
        f"The whole grid in one run: {len(configs)} grid point(s), each model paired "
        "only with its own dataset(s) by model_dataset_combinations; the per-point "
        "files written beside this one hold the same models and datasets.",
        "Run with: opencompass THIS_FILE -w OUTPUT_DIR",
        "On Slurm: opencompass THIS_FILE -w OUTPUT_DIR --slurm -p PARTITION",
    )
    variables = dict(models=models, datasets=datasets, model_dataset_combinations=combos)
    for section in ("infer", "eval"):
        if section in configs[0].variables:
            variables[section] = configs[0].variables[section]
    return ConfigData(grid_stem(template_name), header, variables)
