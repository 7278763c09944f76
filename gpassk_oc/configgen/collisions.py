"""Two grid points never share one file name, also across dumps into one folder.

A name carries every setting that differs from the defaults, but a folder may hold a file
of another template (or of a version before the name carried a setting) under the name a
new grid point gets. :func:`point_key` is what makes a grid point — the model, what it
is sent, the questions, how the answers are graded — read from config data; a generated
file already in the folder is read back (:func:`read_config_data`, no code is run) and a
same-named file of another grid point is refused (:func:`check_folder`). Batch sizes,
URLs, runner sections and the run record are not part of a grid point: changing them and
dumping again replaces the files, as before.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["point_key", "read_config_data", "check_folder"]

_MODEL_KEYS = (
    "type",
    "path",
    "gen_config",
    "temperature",
    "openai_extra_kwargs",
    "extra_body",
    "max_out_len",
)
_EVALUATOR_KEYS = ("type", "k", "thresholds", "reasoning", "think_tags")


def point_key(data: Mapping[str, Any]) -> dict[str, Any]:
    """What makes the grid point of one config's data (``models``/``datasets`` of one)."""
    model, dataset = data["models"][0], data["datasets"][0]
    evaluator = dataset.get("eval_cfg", {}).get("evaluator", {})
    judge = evaluator.get("judge") or {}
    key = {f"model {k}": model.get(k) for k in _MODEL_KEYS}
    key.update(
        {
            "version": dataset.get("version"),
            "dataset_splits": sorted(dataset.get("dataset_splits") or []),
            "dataset_languages": sorted(dataset.get("dataset_languages") or []),
            "cot": dataset.get("cot"),
            "k": dataset.get("k"),
            "n": dataset.get("n"),
            "judge": [judge.get("model"), judge.get("prompt")],
        }
    )
    key.update({f"evaluator {k}": evaluator.get(k) for k in _EVALUATOR_KEYS})
    return key


def _value(node: ast.AST) -> Any:
    """A literal of a generated file: imported class names become their names."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {kw.arg: _value(kw.value) for kw in node.keywords if kw.arg}
    if isinstance(node, ast.Name):
        return node.id
    raise ValueError("not a literal")


def read_config_data(path: Path) -> dict[str, Any] | None:
    """``models``/``datasets`` of a generated config file; None when it is not one."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {
            target.id: _value(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name) and target.id in ("models", "datasets")
        }
        point_key(found)
    except (
        OSError,
        UnicodeDecodeError,
        SyntaxError,
        ValueError,
        LookupError,
        TypeError,
        AttributeError,
    ):
        return None
    return found


def _class_name(value: Any) -> Any:
    return value.rpartition(".")[2] if isinstance(value, str) else value


def _comparable(key: dict[str, Any]) -> dict[str, Any]:
    """Class types compared by class name: a file holds ``Name``, the data ``module.Name``."""
    return {k: _class_name(v) if k.endswith(" type") or k == "type" else v for k, v in key.items()}


def check_folder(out: Path, configs: Sequence[tuple[str, Mapping[str, Any], str]]) -> list[str]:
    """One line per config (name, data, where it comes from) whose name a file in *out*
    already holds for another grid point."""
    lines = []
    for name, data, where in configs:
        target = out / name
        if not target.is_file():
            continue
        there = read_config_data(target)
        if there is None:  # not a generated file: the ownership check decides
            continue
        old, new = _comparable(point_key(there)), _comparable(point_key(data))
        differ = [k for k in new if old.get(k) != new[k]]
        if differ:
            shown = "; ".join(f"{k} {old.get(k)!r} there, {new[k]!r} here" for k in differ[:2])
            lines.append(
                f"{target}: holds another grid point{_origin(target)} than {where} would "
                f"write under this name ({shown}); move that file or dump into another folder"
            )
    return lines


def _origin(path: Path) -> str:
    """`` (of template X.py)`` from a generated file's first header line, or ''."""
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
    except (OSError, UnicodeDecodeError):
        return ""
    _, found, rest = first.partition(" from template ")
    return f" (of template {rest.strip().rstrip('.')})" if found and rest.strip() else ""
