"""The rescore sidecar: the tool's reported values beside the re-scored ones, as data.

``rescore`` writes, under OUT, the results file in the layout every reader knows
(``{ts}/results/{model}/{abbr}.json``) and beside it ``{ts}/rescore/{model}/{abbr}.json``::

    {"schema": "gpassk_oc.rescore/1", "writer": "gpassk_oc 0.x",
     "tool": {"name": "lm-eval", "version": "0.4.13"},  # other harnesses only
     "task": {"run": ts, "model": the leaderboard's name, "model_abbr": ...,
              "dataset_abbr": ..., "evaluator": ..., "tool_task": ... (other harnesses),
              "judge_configured": bool, "n": 4, "num_questions": 8, "ks": [2, 4],
              "config": path, "predictions": [paths], "opencompass_results": path | null},
     "groups": "data" | "config" | "tool" | "unknown",
     "reasoning": {"applied": bool, "why": "..."},
     "opencompass_problem": null | "why its results could not be compared",
     "metrics": [{"metric": "G-Pass@4_0.5", "opencompass": 65.62 | null, "rescored": 87.5}],
     # "opencompass": the value the tool reported (OpenCompass's, or the "tool"'s)
     "reasons": [{"kind": "labels_reused" | "truncated_graded" | "disagree" | "no_results"
                  | "groups_dropped" | "groups_unknown" | "first_k_filter"
                  | "regex_cut_braces" | "nominal_n" | "float_tau", ...counts}],
     "disagreements": {"samples": 128, "compared": 128, "by_kind": {"reused_label": 12, ...}},
     "notes": ["..."]}

The folder name is not ``results``, so report/compare/plan never take it for a results
file. This module owns the format; :mod:`gpassk_oc.rescore.reason_words` words its reasons
and :mod:`gpassk_oc.report.data.rescored_section` renders it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["RESCORE_DIR", "SIDECAR_SCHEMA", "find_sidecars", "read_sidecar", "sidecar_path"]

RESCORE_DIR = "rescore"
SIDECAR_SCHEMA = "gpassk_oc.rescore/1"
#: the manifest of what rescore wrote under OUT (relative path -> sha256)
MANIFEST = ".gpassk-oc-rescore.json"


def sidecar_path(out: Path, run: str, model_abbr: str, dataset_abbr: str) -> Path:
    """``{out}/{run}/rescore/{model}/{abbr}.json``."""
    return out / run / RESCORE_DIR / model_abbr / f"{dataset_abbr}.json"


def read_sidecar(path: Path) -> dict[str, Any] | None:
    """A sidecar's data, None when *path* is not one (unreadable or another schema)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SIDECAR_SCHEMA:
        return None
    return data


def find_sidecars(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Every sidecar under *paths* (folders searched; files read as they are), in path
    order."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.json") if p.parent.parent.name == RESCORE_DIR)
        elif path.parent.parent.name == RESCORE_DIR:
            found.append(path)
        else:  # a results file: its sidecar, when rescore wrote one
            found.append(path.parent.parent.parent / RESCORE_DIR / path.parent.name / path.name)
    out = []
    for p in dict.fromkeys(found):
        data = read_sidecar(p)
        if data is not None:
            out.append(data)
    return out
