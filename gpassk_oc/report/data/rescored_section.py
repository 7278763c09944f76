"""The report's "OpenCompass reported vs re-scored" section, from rescore's sidecars.

Data come from :mod:`gpassk_oc.rescore.sidecar` (written by ``gpassk-oc rescore``); this
module only turns them into markdown: per task, OpenCompass's value beside the re-scored
one for every overall metric, then one sentence per reason the sidecar names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gpassk_oc.rescore.sidecar import find_sidecars

__all__ = ["reason_text", "render_rescored", "rescored_section"]

_DISAGREE = {
    "reused_label": "carried replica 0's reused label",
    "truncated_graded": "were unfinished thoughts OpenCompass graded correct",
    "opencompass_only_correct": "OpenCompass correct, re-graded wrong",
    "rescore_only_correct": "OpenCompass wrong, re-graded correct",
}


def reason_text(reason: Mapping[str, Any], task: Mapping[str, Any]) -> str:
    """One sentence for one reason of a sidecar."""
    kind = reason.get("kind")
    if kind == "labels_reused":
        log = reason.get("judge_log_entries")
        logged = "" if log is None else f"; its judge log holds {log} entries"
        return (
            f"labels reused across replicas: with a judge configured, every replica of every "
            f"question carries replica 0's label ({reason['questions']} labels for "
            f"{reason['samples']} samples{logged}); {reason['changed']} samples change when "
            "graded one by one"
        )
    if kind == "truncated_graded":
        graded = reason.get("opencompass_correct")
        told = "" if graded is None else f", {graded} of them scored correct by OpenCompass"
        return (
            f"truncated thoughts graded: {reason['truncated']} replies never closed their "
            f"thinking{told}; re-scoring counts them as no answer"
        )
    if kind == "disagree":
        parts = [f"{reason[k]} {text}" for k, text in _DISAGREE.items() if reason.get(k)]
        return "samples that disagree under re-grading: " + "; ".join(parts)
    if kind == "no_results":
        return (
            "OpenCompass left no results file (its evaluation crashed or never ran): "
            "re-scored from the predictions alone"
        )
    if kind == "groups_dropped":
        return (
            "split × language unknown: OpenCompass overwrote them with the abbr; rerun "
            "rescore with --data LIVEMATH_DIR to recover them"
        )
    return str(kind)


def _number(value: Any) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def render_rescored(sidecars: Iterable[Mapping[str, Any]]) -> str:
    """Markdown for the sidecars ('' when there are none)."""
    blocks = []
    for data in sidecars:
        task = data["task"]
        head = (
            f"### {task['model_abbr']} / {task['dataset_abbr']} ({task['run']}, "
            f"{task['evaluator']}, n = {task['n']})"
        )
        lines = [
            head,
            "",
            "| metric | OpenCompass reported | re-scored | difference |",
            "|---|---:|---:|---:|",
        ]
        for m in data["metrics"]:
            oc, mine = m.get("opencompass"), m.get("rescored")
            diff = "—" if oc is None or mine is None else f"{mine - oc:+.2f}"
            lines.append(f"| {m['metric']} | {_number(oc)} | {_number(mine)} | {diff} |")
        reasons = [reason_text(r, task) for r in data.get("reasons", [])]
        if data.get("opencompass_problem") and not any(
            r.get("kind") == "no_results" for r in data.get("reasons", [])
        ):
            reasons.append(f"OpenCompass's results: {data['opencompass_problem']}")
        lines += ["", *(f"- {r}" for r in reasons or ["no difference the re-grading can name"])]
        blocks.append("\n".join(lines))
    if not blocks:
        return ""
    return "\n\n## OpenCompass reported vs re-scored\n\n" + "\n\n".join(blocks) + "\n"


def rescored_section(paths: Iterable[str | Path]) -> str:
    """The section for the sidecars found under the report's *paths* ('' when none)."""
    return render_rescored(find_sidecars(paths))
