"""Why OpenCompass's numbers differ from the re-scored ones: the reasons rescore can name.

* ``labels_reused`` — OpenCompass 0.5.4's ``LiveMathBenchEvaluator.judge`` caches the
  judge's labels in one ``tmp_judge.json`` keyed by the index *within a replica*, and
  ``BaseEvaluator.evaluate`` scores the replicas one after another with the same evaluator:
  replicas 1..n-1 get replica 0's labels. Named when a judge was configured, n > 1 and
  every question's n labels equal its replica 0's although the replies differ.
* ``truncated_graded`` — replies whose thinking never closed, which OpenCompass graded as
  answers (its rule path takes the last box anywhere).
* ``disagree`` — samples whose OpenCompass label and re-graded verdict differ, by kind.
* ``no_results`` / ``groups_dropped`` — OpenCompass left no results file (its evaluation
  crashed: rescored from the predictions alone), or dropped split × language.

Everything is data (counts per kind); :mod:`gpassk_oc.report.data.rescored_section` writes the words.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from gpassk_oc import __version__
from gpassk_oc.core.vocabulary import Found
from gpassk_oc.rescore.questions import Located
from gpassk_oc.rescore.regrade import Regraded
from gpassk_oc.rescore.reported import Reported
from gpassk_oc.rescore.sidecar import SIDECAR_SCHEMA
from gpassk_oc.rescore.source import OCTask
from gpassk_oc.workdir import results_file

__all__ = [
    "KINDS",
    "build_sidecar",
    "disagreements",
    "identity_model",
    "reported_beside",
    "reused_labels",
]

#: disagreement kinds, in the order they are attributed
KINDS = ("reused_label", "truncated_graded", "opencompass_only_correct", "rescore_only_correct")


def reused_labels(
    labels: Sequence[Sequence[bool | None]], replies: Sequence[Sequence[str]]
) -> bool:
    """Every question's labels equal its replica 0's while some question's replies differ
    (with n > 1): the footprint of OpenCompass's per-replica judge cache."""
    if not labels or len(labels[0]) < 2:
        return False
    same = all(len(set(row)) == 1 for row in labels)
    varied = any(len(set(r)) > 1 for r in replies)
    return same and varied


def disagreements(
    labels: Sequence[Sequence[bool | None]],
    correct: Sequence[Sequence[bool | None]],
    found: Sequence[Sequence[str]] | None,
    reused: bool = False,
) -> tuple[Counter, int]:
    """Samples whose tool *labels* and re-graded verdicts (*correct*) differ, by kind
    (:data:`KINDS`), and how many samples both decided. *found* marks unclosed thinking."""
    kinds: Counter = Counter()
    compared = 0
    found = found or [[Found.NONE] * len(row) for row in labels]
    for q, row in enumerate(labels):
        mine = correct[q]
        for r, label in enumerate(row):
            verdict = mine[r] if r < len(mine) else None
            if label is None or verdict is None:
                continue
            compared += 1
            if label == verdict:
                continue
            if reused and r > 0 and label == row[0]:
                kinds["reused_label"] += 1
            elif label and found[q][r] == Found.TRUNCATED:
                kinds["truncated_graded"] += 1
            elif label:
                kinds["opencompass_only_correct"] += 1
            else:
                kinds["rescore_only_correct"] += 1
    return kinds, compared


def _judge_log(task: OCTask) -> int | None:
    """Entries of OpenCompass's ``tmp_judge.json`` (one per judge request it kept), which
    its evaluator writes into its output dir ``results/{model}/{abbr}/``; None if absent."""
    path = results_file(task.run_dir, task.model_abbr, task.dataset_abbr)
    log = path.parent / path.name.removesuffix(".json") / "tmp_judge.json"
    try:
        data = json.loads(log.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return len(data) if isinstance(data, (dict, list)) else None


def _truncated(regraded: Regraded) -> list[tuple[int, int]]:
    """(question, replica) of every reply whose thinking never closed."""
    return [
        (qi, r)
        for qi, row in enumerate(regraded.graded.found or [])
        for r, f in enumerate(row)
        if f == Found.TRUNCATED
    ]


def _label_reasons(
    task: OCTask, regraded: Regraded, labels: Sequence[Sequence[bool | None]]
) -> tuple[list[dict[str, Any]], Counter, int]:
    """The reasons OpenCompass's per-sample *labels* show, the disagreements by kind and
    how many samples were compared."""
    n, q = task.n, len(regraded.replies)
    reasons: list[dict[str, Any]] = []
    reused = task.judge_configured and reused_labels(labels, regraded.replies)
    graded = regraded.graded
    kinds, compared = disagreements(labels, graded.correct, graded.found, reused)
    if reused:
        reasons.append(
            {
                "kind": "labels_reused",
                "questions": q,
                "samples": q * n,
                "judge_log_entries": _judge_log(task),
                "changed": kinds["reused_label"],
            }
        )
    truncated = _truncated(regraded)
    if truncated:
        graded_as_correct = sum(1 for qi, r in truncated if labels[qi][r])
        reasons.append(
            {
                "kind": "truncated_graded",
                "truncated": len(truncated),
                "opencompass_correct": graded_as_correct,
            }
        )
    if sum(kinds.values()):
        reasons.append({"kind": "disagree", **{k: kinds[k] for k in KINDS}})
    return reasons, kinds, compared


def _reasons(
    task: OCTask, located: Located, regraded: Regraded, reported: Reported
) -> tuple[list[dict[str, Any]], Counter, int]:
    reasons: list[dict[str, Any]] = []
    if reported.path is None:
        reasons.append({"kind": "no_results"})
    if located.how == "unknown":
        reasons.append({"kind": "groups_dropped"})
    labels = reported.labels
    if labels is not None and len(labels) == len(regraded.replies):
        more, kinds, compared = _label_reasons(task, regraded, labels)
        return reasons + more, kinds, compared
    truncated = _truncated(regraded)
    if truncated:
        reasons.append({"kind": "truncated_graded", "truncated": len(truncated)})
    return reasons, Counter(), 0


def identity_model(results: dict[str, Any]) -> str:
    """The model a report's leaderboard names this run by: the record's model (path or
    served name), else its abbr — so every section names the run alike."""
    record = results.get("record") or {}
    return str(record.get("model_path") or record.get("model_abbr") or "")


def reported_beside(results: dict[str, Any], reported: dict[str, float]) -> list[dict[str, Any]]:
    """Each overall metric of *results* with the tool's own value (None: not reported)."""
    return [
        {"metric": key, "opencompass": reported.get(key), "rescored": value}
        for key, value in results.items()
        if "/" not in key and isinstance(value, (int, float)) and not isinstance(value, bool)
    ]


def build_sidecar(
    task: OCTask, located: Located, regraded: Regraded, reported: Reported
) -> dict[str, Any]:
    """The sidecar's data for one task (format: :mod:`gpassk_oc.rescore.sidecar`)."""
    results = regraded.results
    n, q = task.n, len(regraded.replies)
    reasons, kinds, compared = _reasons(task, located, regraded, reported)
    return {
        "schema": SIDECAR_SCHEMA,
        "writer": f"gpassk_oc {__version__}",
        "task": {
            "run": task.run_dir.name,
            "model": identity_model(results),
            "model_abbr": task.model_abbr,
            "dataset_abbr": task.dataset_abbr,
            "evaluator": task.evaluator_name,
            "judge_configured": task.judge_configured,
            "n": n,
            "num_questions": q,
            "ks": list(results["run"]["ks"]),
            "config": str(task.config_path),
            "predictions": [str(p) for p in task.predictions],
            "opencompass_results": None if reported.path is None else str(reported.path),
        },
        "groups": located.how,
        "reasoning": {"applied": regraded.reasoning, "why": regraded.reasoning_why},
        "opencompass_problem": reported.problem,
        "metrics": reported_beside(results, reported.metrics),
        "reasons": reasons,
        "disagreements": {
            "samples": q * n,
            "compared": compared,
            "by_kind": {k: kinds[k] for k in KINDS},
        },
        # a success (split × language recovered) is no note: the console says how
        "notes": [
            n for n in (located.note if located.how == "unknown" else None, *task.notes) if n
        ],
    }
