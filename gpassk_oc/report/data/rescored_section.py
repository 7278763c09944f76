"""The report's "OpenCompass reported vs re-scored" section, from rescore's sidecars.

Data come from :mod:`gpassk_oc.rescore.sidecar` (written by ``gpassk-oc rescore``); this
module only turns them into markdown: per task, OpenCompass's value beside the re-scored
one for every overall metric, then one sentence per reason the sidecar names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gpassk_oc.rescore.reason_words import reason_text, tool_label
from gpassk_oc.rescore.sidecar import find_sidecars

__all__ = ["reason_text", "render_rescored", "rescored_section"]


def _number(value: Any) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def render_rescored(sidecars: Iterable[Mapping[str, Any]]) -> str:
    """Markdown for the sidecars ('' when there are none)."""
    blocks, tools = [], set()
    for data in sidecars:
        tools.add(tool_label(data).split(" ")[0])
        task = data["task"]
        head = (
            f"### {task.get('model') or task['model_abbr']} / {task['dataset_abbr']} "
            f"({task['run']}, {task['model_abbr']}, {task['evaluator']}, n = {task['n']})"
        )
        lines = [
            head,
            "",
            f"| metric | {tool_label(data)} reported | re-scored | difference |",
            "|---|---:|---:|---:|",
        ]
        for m in data["metrics"]:
            oc, mine = m.get("opencompass"), m.get("rescored")
            diff = "—" if oc is None or mine is None else f"{mine - oc:+.2f}"
            lines.append(f"| {m['metric']} | {_number(oc)} | {_number(mine)} | {diff} |")
        reasons = [reason_text(r, tool_label(data)) for r in data.get("reasons", [])]
        if data.get("opencompass_problem") and not any(
            r.get("kind") == "no_results" for r in data.get("reasons", [])
        ):
            reasons.append(f"OpenCompass's results: {data['opencompass_problem']}")
        lines += ["", *(f"- {r}" for r in reasons or ["no difference the re-grading can name"])]
        blocks.append("\n".join(lines))
    if not blocks:
        return ""
    title = "OpenCompass reported" if tools == {"OpenCompass"} else "Each tool's numbers"
    return f"\n\n## {title} vs re-scored\n\n" + "\n\n".join(blocks) + "\n"


def rescored_section(paths: Iterable[str | Path]) -> str:
    """The section for the sidecars found under the report's *paths* ('' when none)."""
    return render_rescored(find_sidecars(paths))
