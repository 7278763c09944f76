"""Find and read templates: the file lookup, executing a grid template into its variables,
and telling GPassK-style templates (which build ``models``/``datasets`` themselves) apart.

Python errors in a template become one :class:`TemplateError` line with the template's
line number. GPassK-style templates are read with mmengine (see :mod:`.gpassk`).
"""

from __future__ import annotations

import ast
import os
import traceback
import types
from pathlib import Path
from typing import Any

from gpassk_oc.configgen.checks import exited
from gpassk_oc.configgen.schema import TemplateError

__all__ = [
    "TEMPLATES_DIRNAME",
    "templates_dir",
    "resolve_template",
    "read_variables",
    "is_gpassk_style",
    "available_templates",
    "entry_lines",
]

TEMPLATES_DIRNAME = "opencompass_config_templates"


def templates_dir() -> Path:
    """The shipped templates: ``gpassk_oc/templates`` in a wheel; in a source checkout
    (editable install) the repository's ``opencompass_config_templates/``, which the wheel
    maps to ``gpassk_oc/templates`` (pyproject ``package-dir``), so it is the one source."""
    packaged = Path(__file__).resolve().parent.parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / TEMPLATES_DIRNAME


def available_templates() -> list[str]:
    directory = templates_dir()
    return sorted(p.name for p in directory.glob("*.py")) if directory.is_dir() else []


def resolve_template(
    name_or_path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None
) -> Path:
    """Find a template: as given (relative to *cwd*), then among the shipped templates
    (:func:`templates_dir`), by path or by file name. A missing '.py' suffix is added."""
    raw = Path(name_or_path)
    names = [raw] if raw.suffix == ".py" else [raw, raw.with_name(raw.name + ".py")]
    base = Path(cwd) if cwd is not None else Path.cwd()
    candidates = [c if c.is_absolute() else base / c for c in names]
    if not raw.is_absolute():
        shipped = templates_dir()
        for candidate in names:
            candidates += [shipped / candidate, shipped / candidate.name]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    available = available_templates()
    hint = f" (shipped: {', '.join(available)})" if available else ""
    raise TemplateError(
        f"template not found in the current directory or among the shipped templates{hint}"
    )


def _source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"cannot read template: {exc}") from None


def read_variables(path: Path) -> dict[str, Any]:
    """Execute a grid template; its variables without private names (``_x``), modules,
    classes and functions."""
    filename = str(path)
    try:
        code = compile(_source(path), filename, "exec")
    except SyntaxError as exc:
        raise TemplateError(f"line {exc.lineno}: {exc.msg}") from None
    namespace: dict[str, Any] = {"__name__": "__gpassk_template__", "__file__": filename}
    try:
        exec(code, namespace)  # noqa: S102 - the template is the user's own config file
    except SystemExit as exc:  # exit() in a template: said, not obeyed
        raise TemplateError(f"{_where(exc, filename)}{exited(exc.code)}") from None
    except Exception as exc:  # any Python error in the template is reported, not raised
        where = _where(exc, filename)
        raise TemplateError(f"{where}{type(exc).__name__}: {exc}".splitlines()[0]) from None
    skipped = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)
    return {
        name: value
        for name, value in namespace.items()
        if not name.startswith("_") and not isinstance(value, skipped)
    }


def _where(exc: BaseException, filename: str) -> str:
    """``line N: `` of the template's innermost frame in *exc*'s traceback, or ''."""
    line = next(
        (
            frame.lineno
            for frame in reversed(traceback.extract_tb(exc.__traceback__))
            if frame.filename == filename
        ),
        None,
    )
    return f"line {line}: " if line else ""


def is_gpassk_style(path: Path) -> bool:
    """GPassK-style templates assign ``models``/``datasets`` at top level."""
    try:
        tree = ast.parse(_source(path))
    except SyntaxError:
        return False  # read_variables reports the error with its line
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else ([node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        )
        if any(isinstance(t, ast.Name) and t.id in ("models", "datasets") for t in targets):
            return True
    return False


def entry_lines(path: Path) -> dict[str, list[int]]:
    """Line of every entry of a literal ``llm_infos`` / ``api_models`` list in a grid
    template (the last assignment wins, as when the template runs), for messages."""
    try:
        tree = ast.parse(_source(path))
    except (SyntaxError, TemplateError):
        return {}
    lines: dict[str, list[int]] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, (ast.List, ast.Tuple)):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id in ("llm_infos", "api_models"):
                lines[target.id] = [element.lineno for element in node.value.elts]
    return lines
