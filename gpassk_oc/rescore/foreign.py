"""Re-score one :class:`~gpassk_oc.rescore.importer.ForeignRun` (another tool's run).

Checks what the tool's files said (a gold per question, no more replies than declared),
recovers split × language from local LiveMathBench files by question text (``--data``)
where the tool kept none, grades through the core step
(:func:`gpassk_oc.rescore.regrade.score_with`) and builds the sidecar: the tool's own
numbers beside the re-scored ones and the reasons they differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from gpassk_oc import __version__
from gpassk_oc.core.runs.run_record import RecordError, RunRecord
from gpassk_oc.core.runs.run_spec import RunSpec, RunSpecError
from gpassk_oc.core.runs.score_run import Question, RunSamples
from gpassk_oc.core.vocabulary import Found
from gpassk_oc.rescore.importer import ForeignQuestion, ForeignRun, Importer, Scored
from gpassk_oc.rescore.questions import local_rows
from gpassk_oc.rescore.reasons import KINDS, disagreements, reported_beside
from gpassk_oc.rescore.regrade import Options, score_with
from gpassk_oc.rescore.sidecar import SIDECAR_SCHEMA
from gpassk_oc.rescore.source import RescoreError

__all__ = ["default_ks", "foreign_importer", "rescore_foreign", "run_label", "safe_name"]


def safe_name(text: str) -> str:
    """A model or task name as one path component (``openai/m`` -> ``openai_m``)."""
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in text).strip(".") or "_"


def run_label(run: ForeignRun) -> str:
    """The run's label (model abbr, folder name): the model and its source tool, so runs
    of one model from two tools stay apart in a report (``gpassk-demo-shaky@lm-eval``)."""
    return f"{safe_name(run.model)}@{run.tool}"


def default_ks(n: int) -> tuple[int, ...]:
    """The ks reported when the tool names none: the powers of two from 2 up to n (k = 1
    at n = 1)."""
    ks = tuple(k for k in (2, 4, 8, 16, 32, 64, 128, 256) if k <= n)
    return ks or (1,)


def _check(run: ForeignRun) -> None:
    if not run.questions:
        raise RescoreError(f"{run.files[0]}: no question in the {run.tool} run")
    for q in run.questions:
        if q.gold is None or not str(q.gold).strip():
            raise RescoreError(f"{q.where}: question {q.question!r:.50} has no gold answer")
        if len(q.replies) > run.n:
            raise RescoreError(
                f"{q.where}: {len(q.replies)} replies, more than the run's declared n={run.n}"
            )


def _known(data: Path) -> list[dict[str, Any]]:
    """Every question of the local LiveMathBench files under *data* (any version)."""
    files = sorted(data.glob("*/*_*.jsonl")) or sorted(data.glob("*_*.jsonl"))
    if not files:
        raise RescoreError(f"--data {data}: no {{version}}/{{split}}_{{lang}}.jsonl files")
    return [
        {
            **r,
            "question_id": f"{split}_{lang}_{i}",
            "split": split,
            "language": lang,
            "_version": file.parent.name,
        }
        for file in files
        for split, lang, i, r in local_rows([file])
    ]


def _match(q: ForeignQuestion, known: Sequence[dict[str, Any]], data: Path) -> dict[str, Any]:
    """The local question *q* asks: the same text, else the longest contained in it."""
    text = q.question.strip()
    same = [k for k in known if str(k["question"]).strip() == text]
    hits = same or [k for k in known if str(k["question"]).strip() in text]
    if not hits:
        raise RescoreError(f"{q.where}: question {q.question!r:.50} is not in --data {data}")
    return max(hits, key=lambda k: len(str(k["question"])))


def _rows(run: ForeignRun, data: Path | None) -> tuple[list[dict[str, Any]], str]:
    """The question rows and how split × language were known (tool, data, unknown)."""
    rows: list[dict[str, Any]] = [
        {
            "question_id": q.question_id or str(i),
            "split": q.split,
            "language": q.language,
            "question_type": "",
            "question": q.question,
            "answer": str(q.gold),
        }
        for i, q in enumerate(run.questions)
    ]
    if all(r["split"] and r["language"] for r in rows):
        return rows, "tool"
    if data is None:
        return rows, "unknown"
    known = _known(data)
    place = {id(k): i for i, k in enumerate(known)}
    for row, q in zip(rows, run.questions):
        hit = _match(q, known, data)
        row.update(question_id=hit["question_id"], split=hit["split"], language=hit["language"])
        row["question_type"] = str(hit.get("question_type") or "")
        row["_place"], row["_version"] = place[id(hit)], hit["_version"]
    return rows, "data"


def _in_data_order(run: ForeignRun, rows: list[dict[str, Any]]) -> ForeignRun:
    """*run* and *rows* in the local files' order (rows found by --data): a question's index
    is then the same whichever tool asked it, so runs of two tools pair by question."""
    order = sorted(range(len(rows)), key=lambda i: rows[i]["_place"])
    seen: dict[int, int] = {}
    for i in order:
        if (first := seen.setdefault(rows[i]["_place"], i)) != i:
            raise RescoreError(
                f"{run.questions[i].where}: the same --data question as {run.questions[first].where}"
                f" ({rows[i]['question_id']}); the data is not the one this run used"
            )
    versions = {str(r["_version"]) for r in rows}
    rows[:] = [{k: v for k, v in rows[i].items() if not k.startswith("_")} for i in order]
    # named after the local data, so runs of every tool over it share one report table
    task = f"LiveMathBench_v{versions.pop()}" if len(versions) == 1 else run.task
    return replace(run, questions=[run.questions[i] for i in order], task=task, tool_task=run.task)


def _record(run: ForeignRun, opts: Options) -> RunRecord:
    judge = opts.judge_identity
    facts = {
        "model_abbr": run_label(run),
        "model_path": run.model,
        "dataset_abbr": safe_name(run.task),
        "temperature": run.temperature,
        "top_p": run.top_p,
        "max_out_len": run.max_tokens,
        "check": str(opts.check),
        "judge_model": judge.get("model") if judge else None,
        "judge_prompt": None if not judge else str(judge.get("prompt_name") or judge.get("prompt")),
        "plugin_version": __version__,
        "source": f"rescore: {run.tool} {run.tool_version or '(version unknown)'}",
    }
    try:
        return RunRecord.from_json(facts, f"{run.files[0]}: record")
    except RecordError as exc:
        raise RescoreError(str(exc)) from None


def _spec(run: ForeignRun) -> RunSpec:
    try:
        return RunSpec.parse(run.ks or default_ks(run.n), n=run.n, where=f"{run.files[0]}: ")
    except RunSpecError as exc:
        raise RescoreError(str(exc)) from None


def rescore_foreign(run: ForeignRun, data: Path | None, opts: Options) -> Scored:
    """(results file JSON, sidecar) of *run*; RescoreError naming the file and record."""
    _check(run)
    rows, how = _rows(run, data)
    if how == "data":
        run = _in_data_order(run, rows)
    spec = _spec(run)
    questions = [Question(row, q.replies) for row, q in zip(rows, run.questions)]
    samples = RunSamples(spec, questions, _record(run, opts))
    scored, rule = score_with(samples, opts, f"{run.tool}:{run.task}")
    why = f"{opts.reasoning}: read as {rule.applied!r} ({rule.why})"
    sidecar = _sidecar(run, scored.results, scored.graded, how)
    sidecar["reasoning"] = {"applied": rule.reasoning, "why": why}
    return scored.results, sidecar


def _reasons(run: ForeignRun, graded: Any, how: str) -> tuple[list[dict[str, Any]], Any, int]:
    """The importer's reasons, then those the tool's per-sample labels show."""
    reasons = list(run.reasons)
    if how == "unknown":
        reasons.append({"kind": "groups_unknown"})
    labels = [q.labels for q in run.questions if q.labels is not None]
    if len(labels) < len(run.questions):
        truncated = sum(f == Found.TRUNCATED for row in graded.found or [] for f in row)
        if truncated:
            reasons.append({"kind": "truncated_graded", "truncated": truncated})
        return reasons, {}, 0
    kinds, compared = disagreements(labels, graded.correct, graded.found)
    if kinds["truncated_graded"]:
        reasons.append({"kind": "truncated_graded", "tool_correct": kinds["truncated_graded"]})
    if sum(kinds.values()):
        reasons.append({"kind": "disagree", **{k: kinds[k] for k in KINDS}})
    return reasons, kinds, compared


def _sidecar(run: ForeignRun, results: dict[str, Any], graded: Any, how: str) -> dict[str, Any]:
    reasons, kinds, compared = _reasons(run, graded, how)
    samples = sum(len(q.replies) for q in run.questions)
    return {
        "schema": SIDECAR_SCHEMA,
        "writer": f"gpassk_oc {__version__}",
        "tool": {"name": run.tool, "version": run.tool_version},
        "task": {
            "run": run.run,
            "model": run.model,
            "model_abbr": run_label(run),
            "dataset_abbr": safe_name(run.task),
            "evaluator": run.tool,
            "tool_task": run.tool_task or run.task,
            "judge_configured": False,
            "n": run.n,
            "num_questions": len(run.questions),
            "ks": list(results["run"]["ks"]),
            "config": None,
            "predictions": [str(p) for p in run.files],
            "opencompass_results": None,
        },
        "groups": how,
        "opencompass_problem": None,
        "metrics": reported_beside(results, run.reported),
        "reasons": reasons,
        "disagreements": {
            "samples": samples,
            "compared": compared,
            "by_kind": {k: kinds.get(k, 0) for k in KINDS},
        },
        "notes": [],
    }


def _rescore_with(
    read: Callable[[Any], ForeignRun], job: Any, data: Path | None, opts: Options
) -> Scored:
    return rescore_foreign(read(job), data, opts)


def foreign_importer(
    name: str,
    recognise: Callable[[Path], list[Path]],
    find_runs: Callable[[Path], tuple[list[Any], list[str]]],
    read_run: Callable[[Any], ForeignRun],
) -> Importer:
    """An importer whose runs are :class:`ForeignRun` read by *read_run* (module-level
    functions: jobs run in worker processes)."""
    return Importer(name, recognise, find_runs, partial(_rescore_with, read_run))
