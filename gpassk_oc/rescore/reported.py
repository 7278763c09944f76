"""What OpenCompass itself reported for a LiveMathBench task: its numbers and its labels.

OpenCompass 0.5.4's results file (``{ts}/results/{model}/{abbr}.json``) holds its metrics
at the top level — ``G-Pass@{k}_{τ}`` and ``mG-Pass@{k}`` (percent), ``accuracy (n runs
average)`` or ``accuracy`` — the same prefixed by a subdivision (skipped here: OpenCompass
overwrote it with the abbr), and ``details``: one entry per question whose ``correct``
(or ``cascade_correct`` / ``is_correct``) lists the n labels, or one entry per sample when
n = 1. These are read only to be shown beside the re-scored values; never as verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpassk_oc.core.metrics.metric_keys import ACCURACY, PASS_AT_1
from gpassk_oc.core.metrics.registry import parse_result_key

__all__ = ["Reported", "read_reported"]

#: per-sample label keys in the order OpenCompass counts them (BaseEvaluator.evaluate)
_LABEL_KEYS = ("correct", "is_correct", "cascade_correct")


@dataclass
class Reported:
    """OpenCompass's numbers for one task (``metrics`` in this package's key names) and,
    when its details were dumped, its labels per question (``labels[q][r]``, None where a
    sample had none); ``problem`` says why a file could not be used."""

    path: Path | None
    metrics: dict[str, float]
    labels: list[list[bool | None]] | None
    problem: str | None = None


def _metric_key(key: str) -> str | None:
    """This package's name for an OpenCompass overall metric key, None for others."""
    if "/" in key:
        return None
    if key.startswith(ACCURACY):  # 'accuracy' or 'accuracy (4 runs average)'
        return ACCURACY if key == ACCURACY else PASS_AT_1
    try:
        return parse_result_key(key)[1].key
    except ValueError:
        return None


def _label(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    return None


def _labels(details: Any, q: int, n: int) -> list[list[bool | None]] | None:
    """Per-question labels from OpenCompass's details (grouped per question, or one entry
    per sample when n = 1), None when they do not have that shape."""
    if not isinstance(details, list) or not details:
        return None

    def field(d: Any) -> Any:
        if not isinstance(d, Mapping):
            return None
        return next((d[k] for k in _LABEL_KEYS if k in d), None)

    values = [field(d) for d in details]
    if len(values) == q and all(isinstance(v, list) and len(v) == n for v in values):
        return [[_label(x) for x in v] for v in values]
    if n == 1 and len(values) == q:
        return [[_label(v)] for v in values]
    if len(values) == q * n:  # one entry per sample, replica-major
        return [[_label(values[r * q + i]) for r in range(n)] for i in range(q)]
    return None


def read_reported(path: Path | None, q: int, n: int) -> Reported:
    """OpenCompass's results for a task of *q* questions × *n* samples (``path`` None:
    its evaluation left no results file)."""
    if path is None:
        return Reported(None, {}, None, "no results file (the evaluation crashed or never ran)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Reported(path, {}, None, f"unreadable ({exc})")
    if not isinstance(data, Mapping):
        return Reported(path, {}, None, "not a JSON object")
    if "error" in data and len(data) <= 2:
        return Reported(path, {}, None, f"OpenCompass's evaluator failed: {data['error']!s:.120}")
    metrics: dict[str, float] = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        name = _metric_key(str(key))
        if name is not None:
            metrics.setdefault(name, float(value))
    labels = _labels(data.get("details"), q, n)
    problem = None if labels is not None else "no per-sample labels in its details"
    return Reported(path, metrics, labels, problem)
