"""The evaluator's run record and health inputs (adapter helper of ``GPassKEvaluator``).

Where the record's facts come from, first match wins:

1. ``GPassKEvaluator(run_record=dict(...))`` — written by ``gpassk-oc dump`` into every
   generated config (plain data: it survives OpenCompass's config dump). Used when its
   ``model_abbr`` is the task's model (a grid config shares one dataset dict between models).
2. The config OpenCompass dumped into ``{work_dir}/{ts}/configs/`` — the model and dataset
   of this task found by abbr (:mod:`gpassk_oc.workdir`). This is how a hand-written config
   gets a record.
3. Nothing: the sampling settings stay unknown (``None``), never guessed from names.

The evaluator's check mode and judge and the versions of gpassk_oc and OpenCompass are
filled in here; its k list, τ list and n are the run spec
(:class:`~gpassk_oc.core.runs.run_spec.RunSpec`), which the results file keeps once, in
``run``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from gpassk_oc import __version__
from gpassk_oc.core.runs.run_record import (
    LEGACY_SPEC_FIELDS,
    RecordError,
    RunRecord,
    dataset_facts,
    model_facts,
)
from gpassk_oc.workdir import find_pair, load_dumped_config, pair_of, run_dir_of

__all__ = ["check_run_record", "resolve_record", "token_counter"]

#: fields the evaluator fills itself: a run_record kwarg may not set them
_OWN = (
    "check",
    "judge_model",
    "judge_prompt",
    "plugin_version",
    "opencompass_version",
    "source",
)


def check_run_record(run_record: Any) -> dict[str, Any]:
    """A ``run_record`` kwarg as a plain dict, type-checked; one-line ValueError naming
    ``run_record.<field>`` otherwise."""
    if not isinstance(run_record, Mapping):
        raise ValueError(f"run_record: need a dict of RunRecord fields, got {run_record!r}")
    fields = {f.name for f in dataclasses.fields(RunRecord)}
    for key in run_record:
        if key == "replication":  # 0.2.0 configs wrote it; the run spec derives it now
            continue
        if key not in fields or key in _OWN:
            allowed = ", ".join(sorted(fields - set(_OWN)))
            raise ValueError(f"run_record.{key}: not a field the config sets; allowed: {allowed}")
    data = {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in run_record.items()
        if k not in LEGACY_SPEC_FIELDS
    }
    try:
        RunRecord.from_json({"model_abbr": "", "dataset_abbr": "", **data}, "run_record")
    except RecordError as exc:
        raise ValueError(str(exc)) from None
    return data


def _opencompass_version() -> str | None:
    try:
        return metadata.version("opencompass")
    except metadata.PackageNotFoundError:
        return None


def _prompt_version(judge: Mapping[str, Any] | None) -> str | None:
    """``en=<name+hash>, cn=<name+hash>`` (the judge cache's prompt versions), else the name."""
    if not judge:
        return None
    versions = judge.get("prompt_versions")
    if isinstance(versions, Mapping) and versions:
        return ", ".join(f"{lang}={v}" for lang, v in versions.items())
    return None if judge.get("prompt_name") is None else str(judge.get("prompt_name"))


def resolve_record(
    run_record: Mapping[str, Any] | None,
    out_dir: str | None,
    *,
    check: str,
    judge: Mapping[str, Any] | None,
) -> RunRecord:
    """The task's :class:`RunRecord` (see the module docstring for the order of sources)."""
    model_abbr, dataset_abbr = pair_of(out_dir)
    facts: dict[str, Any] = {}
    source = "none"
    if run_record and (model_abbr is None or run_record.get("model_abbr") == model_abbr):
        facts, source = dict(run_record), "generator"
    else:
        run_dir = run_dir_of(out_dir) if out_dir else None
        config = load_dumped_config(run_dir) if run_dir else None
        pair = (
            find_pair(config, model_abbr, dataset_abbr)
            if config and model_abbr and dataset_abbr
            else None
        )
        if pair is not None:
            facts = {**model_facts(pair[0]), **dataset_facts(pair[1])}
            source = "work-dir config"
    facts.setdefault("model_abbr", model_abbr or "")
    facts.setdefault("dataset_abbr", dataset_abbr or "")
    facts.update(
        check=check,
        judge_model=judge.get("model") if judge else None,
        judge_prompt=_prompt_version(judge),
        plugin_version=__version__,
        opencompass_version=_opencompass_version(),
        source=source,
    )
    return RunRecord.from_json(facts, "run_record")


def token_counter(tokenizer_path: str | None) -> Callable[[str], int] | None:
    """Token count by the model's local tokenizer (``local_files_only``), or None when the
    record names none or it cannot be loaded offline (health then uses the approximation)."""
    if not tokenizer_path:
        return None
    try:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tokenizer_path, local_files_only=True)
    except Exception:  # any loading failure: fall back to the documented approximation
        return None

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False).input_ids)

    return count
