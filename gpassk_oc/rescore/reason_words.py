"""One sentence per reason a rescore sidecar names (the console and the report's section
say the same words). The reasons are data (:mod:`.reasons`, :mod:`.foreign`, importers);
this module owns their wording."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["reason_count", "reason_text", "tool_label"]

Reason = Mapping[str, Any]


def tool_label(sidecar: Mapping[str, Any]) -> str:
    """The tool whose numbers a sidecar compares: ``OpenCompass`` or ``lm-eval 0.4.13``."""
    tool = sidecar.get("tool") or {}
    if not tool:
        return "OpenCompass"
    return " ".join(str(p) for p in (tool.get("name"), tool.get("version")) if p)


def _disagree(tool: str) -> dict[str, str]:
    return {
        "reused_label": "carried replica 0's reused label",
        "truncated_graded": f"were unfinished thoughts {tool} graded correct",
        "opencompass_only_correct": f"{tool} correct, re-graded wrong",
        "rescore_only_correct": f"{tool} wrong, re-graded correct",
    }


def _labels_reused(r: Reason, tool: str) -> str:
    log = r.get("judge_log_entries")
    logged = "" if log is None else f"; its judge log holds {log} entries"
    return (
        f"labels reused across replicas: with a judge configured, every replica of every "
        f"question carries replica 0's label ({r['questions']} labels for "
        f"{r['samples']} samples{logged}); {r['changed']} samples change when "
        "graded one by one"
    )


def _truncated(r: Reason, tool: str) -> str:
    graded = r.get("opencompass_correct", r.get("tool_correct"))
    told = "" if graded is None else f", {graded} of them scored correct by {tool}"
    count = r.get("truncated")
    head = (
        f"{count} replies never closed their thinking"
        if count is not None
        else ("replies that never closed their thinking")
    )
    return f"truncated thoughts graded: {head}{told}; re-scoring counts them as no answer"


_WORDS: dict[str, Callable[[Reason, str], str]] = {
    "labels_reused": _labels_reused,
    "truncated_graded": _truncated,
    "disagree": lambda r, tool: (
        "samples that disagree under re-grading: "
        + "; ".join(f"{r[k]} {text}" for k, text in _disagree(tool).items() if r.get(k))
    ),
    "no_results": lambda r, tool: (
        "OpenCompass left no results file (its evaluation crashed or never ran): "
        "re-scored from the predictions alone"
    ),
    "groups_dropped": lambda r, tool: (
        "split × language unknown: OpenCompass overwrote them with the abbr; rerun "
        "rescore with --data LIVEMATH_DIR to recover them"
    ),
    "groups_unknown": lambda r, tool: (
        f"split × language unknown: {tool} kept none; rerun rescore with --data "
        "LIVEMATH_DIR to recover them by question text"
    ),
    "first_k_filter": lambda r, tool: (
        f"{tool}'s {r['filter']} filter graded {r['used']} of the {r['n']} replies per "
        "question; re-scoring grades every reply"
    ),
    "regex_cut_braces": lambda r, tool: (
        f"{r['samples']} answers cut at a nested brace by {tool}'s `[^}}]*` regex "
        "(e.g. \\frac{5}{12}); re-scoring reads the whole box"
    ),
    "nominal_n": lambda r, tool: (
        f"{r['questions']} questions have fewer than the nominal n = {r['n']} replies "
        f"({r['samples']} of {r['expected']} samples kept); {tool} divides by n, "
        "re-scoring by each question's own count"
    ),
    "float_tau": lambda r, tool: (
        f"{tool} reads τ as a float and needs ceil(k·τ) correct: at {r['cases']} it asks "
        "another count than the exact rational threshold"
    ),
}


def reason_text(reason: Reason, tool: str = "OpenCompass") -> str:
    """One sentence for one reason of a sidecar (*tool*: :func:`tool_label`)."""
    words = _WORDS.get(str(reason.get("kind")))
    return str(reason.get("kind")) if words is None else words(reason, tool)


def reason_count(reason: Reason) -> int | None:
    """The number of samples (or questions) a reason concerns, for one-line summaries."""
    if reason.get("kind") == "disagree":
        return sum(int(v) for k, v in reason.items() if k != "kind" and isinstance(v, int))
    for key in ("changed", "samples", "truncated", "questions", "cases"):
        if isinstance(reason.get(key), int):
            return int(reason[key])
    return None
