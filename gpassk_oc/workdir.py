"""Reading an OpenCompass 0.5.4 work dir: the config it dumped, the pairs it configured, and
which of them have no results (the one module that knows this layout: the folder names, the
results file's path, and the judge cache's place beside the timestamps).

``opencompass cfg.py -w WORK`` writes ``WORK/{ts}/configs/{ts}_{pid}.py`` (the parsed config
as plain Python literals: classes are dotted strings), ``WORK/{ts}/predictions/{model}/
{dataset}.json`` (``_0``, ``_1``… when sharded), ``WORK/{ts}/results/{model}/{dataset}.json``
and per-task logs ``WORK/{ts}/logs/{infer,eval}/{model}/{dataset}[_i].out``. OpenCompass exits
0 even when every task failed, so a configured pair without a results file is the signal.

The dumped config is read with :func:`ast.literal_eval`, one top-level assignment at a
time: nothing in it is executed, and assignments that are not literals are skipped.
Used by the evaluator (the run record of a hand-written config) and by ``gpassk-oc report``
and the demo (missing results). Standard library only.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE_DIRNAME",
    "CONFIGS_DIR",
    "LOGS_DIR",
    "PREDICTIONS_DIR",
    "RESULTS_DIR",
    "DumpedConfig",
    "default_cache_location",
    "find_pair",
    "find_result_files",
    "load_dumped_config",
    "missing_results",
    "pair_of",
    "prediction_files",
    "run_dirs",
    "results_file",
    "run_dir_of",
    "timestamp_of",
]

#: OpenCompass's folders under a run dir ``{work_dir}/{ts}`` (the only place they are spelled)
RESULTS_DIR = "results"
PREDICTIONS_DIR = "predictions"
LOGS_DIR = "logs"
CONFIGS_DIR = "configs"
#: Judgement cache directory, created in the OpenCompass work dir (``-w``) next to the
#: timestamp dirs, so every config, every task, ``-r`` reruns and new timestamps share it.
#: The leading dot matters: ``opencompass -r latest`` reuses ``sorted(os.listdir(work_dir))
#: [-1]``, and a name starting with a letter would sort after every ``YYYYmmdd_HHMMSS``
#: timestamp and be taken for the latest run; '.' sorts before the digits.
CACHE_DIRNAME = ".gpassk_judge_cache"

Pair = tuple[Mapping[str, Any], Mapping[str, Any]]


@dataclass(frozen=True)
class DumpedConfig:
    """The literal top-level variables of a dumped config and the file they came from."""

    path: Path
    variables: dict[str, Any]

    def pairs(self) -> list[Pair]:
        """Every configured (model, dataset) pair: ``model_dataset_combinations`` when set,
        else every model × every dataset (as OpenCompass pairs them)."""
        combos = self.variables.get("model_dataset_combinations")
        if not isinstance(combos, list):
            combos = [
                {"models": self.variables.get("models"), "datasets": self.variables.get("datasets")}
            ]
        out: list[Pair] = []
        for combo in combos:
            if not isinstance(combo, Mapping):
                continue
            models = [m for m in combo.get("models") or [] if isinstance(m, Mapping)]
            datasets = [d for d in combo.get("datasets") or [] if isinstance(d, Mapping)]
            out += [(m, d) for m in models for d in datasets]
        return out


def results_file(run_dir: str | Path, model_abbr: str, dataset_abbr: str) -> Path:
    """``{run_dir}/results/{model_abbr}/{dataset_abbr}.json``: where OpenCompass's eval task
    writes the evaluator's result for one pair."""
    return Path(run_dir) / RESULTS_DIR / model_abbr / f"{dataset_abbr}.json"


def pair_of(out_dir: str | Path | None) -> tuple[str | None, str | None]:
    """(model abbr, dataset abbr) of an eval task's ``_out_dir``
    (``{ts}/results/{model}/{dataset}``, the results file without ``.json``)."""
    if not out_dir:
        return None, None
    path = Path(out_dir)
    return path.parent.name or None, path.name or None


def run_dir_of(out_dir: str | Path) -> Path | None:
    """The ``{ts}`` dir of an eval task's ``_out_dir`` (``{ts}/results/{model}/{dataset}``;
    an abbr holding '/' adds levels), or None when the layout is not OpenCompass's."""
    path = Path(os.path.abspath(out_dir))
    for ancestor in path.parents:
        if ancestor.name == RESULTS_DIR:
            return ancestor.parent
    return None


def load_dumped_config(run_dir: str | Path) -> DumpedConfig | None:
    """The config OpenCompass dumped into ``run_dir/configs`` (the newest file when a rerun
    added one), or None when there is none or it cannot be read."""
    files = sorted(Path(run_dir, CONFIGS_DIR).glob("*.py"), key=lambda p: (p.stat().st_mtime, p))
    if not files:
        return None
    try:
        tree = ast.parse(files[-1].read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    variables: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    variables[target.id] = ast.literal_eval(_dicts_as_literals(node.value))
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    continue
    return DumpedConfig(files[-1], variables)


def _dicts_as_literals(node: ast.expr) -> ast.expr:
    """``dict(a=1)`` calls (how mmengine dumps nested dicts) as ``{'a': 1}`` literals."""

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call) -> ast.AST:
            self.generic_visit(call)
            if isinstance(call.func, ast.Name) and call.func.id == "dict" and not call.args:
                if all(k.arg is not None for k in call.keywords):
                    keys: list[ast.expr | None] = [ast.Constant(k.arg) for k in call.keywords]
                    return ast.Dict(keys=keys, values=[k.value for k in call.keywords])
            return call

    return ast.fix_missing_locations(Rewrite().visit(node))


def find_pair(config: DumpedConfig, model_abbr: str, dataset_abbr: str) -> Pair | None:
    """The configured (model, dataset) dicts with these abbrs, or None."""
    for model, dataset in config.pairs():
        if model.get("abbr") == model_abbr and dataset.get("abbr") == dataset_abbr:
            return model, dataset
    return None


def _logs(run_dir: Path, stage: str, model: str, dataset: str) -> list[Path]:
    folder = run_dir / LOGS_DIR / stage / model
    exact = folder / f"{dataset}.out"
    shards = sorted(folder.glob(f"{dataset}_[0-9]*.out")) if folder.is_dir() else []
    return ([exact] if exact.is_file() else []) + shards


def missing_results(run_dir: str | Path) -> list[str]:
    """One line per configured (model, dataset) pair of *run_dir* (a ``{ts}`` dir) that has
    no results file, naming the task log to read; [] when the config cannot be read."""
    run_dir = Path(run_dir)
    config = load_dumped_config(run_dir)
    if config is None:
        return []
    out = []
    seen: set[tuple[str, str]] = set()
    for model, dataset in config.pairs():
        m, d = str(model.get("abbr")), str(dataset.get("abbr"))
        if (m, d) in seen or results_file(run_dir, m, d).is_file():
            continue
        seen.add((m, d))
        predictions = run_dir / PREDICTIONS_DIR / m
        predicted = (predictions / f"{d}.json").is_file() or any(
            predictions.glob(f"{d}_[0-9]*.json")
        )
        stage = "eval" if predicted else "infer"
        logs = _logs(run_dir, stage, m, d)
        where = (
            ", ".join(str(p) for p in logs)
            if logs
            else f"{run_dir / LOGS_DIR / stage / m} (no log)"
        )
        what = "evaluation" if predicted else "inference"
        out.append(
            f"{run_dir.name}: configured {m}/{d} has no results file ({what} failed or "
            f"never ran; OpenCompass exits 0 anyway); see {where}"
        )
    return out


def default_cache_location(out_dir: str) -> tuple[Path, str]:
    """(cache dir, task id) for an evaluator whose ``_out_dir`` OpenCompass set.

    ``OpenICLEvalTask`` sets ``_out_dir = {work_dir}/{timestamp}/results/{model_abbr}/
    {dataset_abbr}`` (the results file without ``.json``). The cache goes to
    ``{work_dir}/.gpassk_judge_cache``: above the timestamp, so new timestamps and ``-r``
    reruns find it. The task id is ``{model_abbr}/{dataset_abbr}``. An abbr containing
    ``/`` adds path levels, so the ``results`` dir is found as the ancestor named
    ``results`` with a ``predictions`` sibling (the eval task has just read it), falling
    back to the plain layout.
    """
    path = Path(os.path.abspath(out_dir))
    for ancestor in path.parents:
        if ancestor.name == RESULTS_DIR and (ancestor.parent / PREDICTIONS_DIR).is_dir():
            return ancestor.parent.parent / CACHE_DIRNAME, path.relative_to(ancestor).as_posix()
    if len(path.parents) < 4 or path.parents[1].name != RESULTS_DIR:
        raise ValueError(
            f"unexpected OpenCompass output dir {out_dir!r}: expected "
            "{work_dir}/{timestamp}/results/{model_abbr}/{dataset_abbr}; "
            "pass GPassKEvaluator(cache_dir=...)"
        )
    return path.parents[3] / CACHE_DIRNAME, f"{path.parent.name}/{path.name}"


def run_dirs(work_dir: str | Path) -> list[Path]:
    """The ``{ts}`` run dirs of an OpenCompass work dir (those holding ``configs/`` or
    ``predictions/``), oldest first; *work_dir* itself when it is one."""
    work_dir = Path(work_dir)
    if (work_dir / CONFIGS_DIR).is_dir() or (work_dir / PREDICTIONS_DIR).is_dir():
        return [work_dir]
    if not work_dir.is_dir():
        return []
    return sorted(
        p
        for p in work_dir.iterdir()
        if p.is_dir() and ((p / CONFIGS_DIR).is_dir() or (p / PREDICTIONS_DIR).is_dir())
    )


def prediction_files(
    run_dir: str | Path, model_abbr: str, dataset_abbr: str
) -> tuple[list[Path], list[Path]]:
    """(prediction files in the order OpenCompass's eval task reads them, ``tmp_*`` files
    of an unfinished inference) for one pair: ``{abbr}.json``, else the shards
    ``{abbr}_0.json``, ``{abbr}_1.json``… up to the first gap (as OpenCompass stops there)."""
    folder = Path(run_dir) / PREDICTIONS_DIR / model_abbr
    tmp = sorted(folder.glob(f"tmp_{dataset_abbr}*.json")) if folder.is_dir() else []
    whole = folder / f"{dataset_abbr}.json"
    if whole.is_file():
        return [whole], tmp
    shards: list[Path] = []
    while (shard := folder / f"{dataset_abbr}_{len(shards)}.json").is_file():
        shards.append(shard)
    return shards, tmp


def timestamp_of(path: Path) -> str:
    """The ``{timestamp}`` dir above ``results/`` ('' when the layout is not standard)."""
    parts = path.parts
    if len(parts) >= 4 and parts[-3] == RESULTS_DIR:
        return parts[-4]
    return ""


def find_result_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """Every ``results/{model}/{dataset}.json`` under the given paths (or the JSON files
    themselves), plus notes for paths that hold none."""
    found: list[Path] = []
    notes: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append(path)
            continue
        if not path.is_dir():
            notes.append(f"{path}: no such file or directory")
            continue
        hits = [
            p
            for p in sorted(path.rglob("*.json"))
            if p.parent.parent.name == RESULTS_DIR
            or (path.name == RESULTS_DIR and p.parent.parent == path)
        ]
        if not hits:
            notes.append(f"{path}: no results/{{model}}/{{dataset}}.json files found")
        found.extend(hits)
        notes.extend(results_missing_for(path))
    return list(dict.fromkeys(p.resolve() for p in found)), notes


def results_missing_for(path: Path) -> list[str]:
    """Predictions without results: the evaluation step failed or never ran."""
    notes = []
    for pred_dir in sorted(path.rglob(PREDICTIONS_DIR)):
        if not pred_dir.is_dir() or (pred_dir.parent / CONFIGS_DIR).is_dir():
            continue  # with a dumped config, report.health.missing_warnings says it louder
        run_dir = pred_dir.parent
        for model_dir in sorted(p for p in pred_dir.iterdir() if p.is_dir()):
            missing: set[str] = set()
            for pred in model_dir.glob("*.json"):
                if pred.name.startswith("tmp_"):  # inference still running / interrupted
                    continue
                head, _, tail = pred.stem.rpartition("_")
                names = {pred.stem} | (
                    {head} if head and tail.isdigit() else set()
                )  # shards: _0, _1…
                if not any(results_file(run_dir, model_dir.name, name).exists() for name in names):
                    missing.add(min(names, key=len))
            for dataset in sorted(missing):
                notes.append(
                    f"{pred_dir.parent.name}: predictions for {model_dir.name}/{dataset} "
                    "but no results file (evaluation missing or failed)"
                )
    return notes
