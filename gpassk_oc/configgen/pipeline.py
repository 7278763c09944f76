"""Template in, config data out: load (or rewrite) a template, validate it, expand it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpassk_oc.configgen import gpassk
from gpassk_oc.configgen.expand import ConfigData, expand, grid_config, point_config
from gpassk_oc.configgen.loader import is_gpassk_style, read_variables
from gpassk_oc.configgen.schema import Settings, TemplateError, validate

__all__ = ["Plan", "template_variables", "load_template", "build", "generate"]


@dataclass
class Plan:
    """Everything one template expands to: validated settings, the per-point configs (in
    grid order), the grid config and the notes to show the user."""

    name: str
    settings: Settings
    configs: list[ConfigData]
    notes: list[str] = field(default_factory=list)

    @property
    def grid(self) -> ConfigData:
        return grid_config(self.name, self.configs)


def template_variables(
    path: str | os.PathLike[str], notes: list[str] | None = None
) -> tuple[dict[str, Any], bool]:
    """(grid variables, whether the template was GPassK-style)."""
    path = Path(path)
    if is_gpassk_style(path):
        return gpassk.grid_variables(path, [] if notes is None else notes), True
    return read_variables(path), False


def load_template(
    path: str | os.PathLike[str], overrides: Mapping[str, Any] | None = None
) -> Settings:
    """Read and validate a template; *overrides* replace template variables."""
    variables, _ = template_variables(path)
    return validate({**variables, **(overrides or {})})


def build(
    path: str | os.PathLike[str],
    name: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    overridden_by: str = "the caller",
) -> Plan:
    """Expand a template into data; raises :class:`TemplateError` before anything could
    be written. *name* is what headers show (default: the file name). *overrides*
    replace template variables (e.g. the demo's endpoint URL), named in every header."""
    path = Path(path)
    name = name or path.name
    notes: list[str] = []
    variables, upstream = template_variables(path, notes)
    header = list(gpassk.REWRITE_NOTES) if upstream else []
    if overrides:
        variables = {**variables, **overrides}
        header.append(f"Overridden by {overridden_by}: {', '.join(overrides)}.")
    settings = validate(variables)
    notes += settings.notes
    configs = [point_config(settings, point, name, header) for point in expand(settings)]
    seen: dict[str, ConfigData] = {}
    for config in configs:  # distinct grid values give distinct names; be sure
        if config.name in seen:
            raise TemplateError(f"duplicate config name {config.name!r}")
        seen[config.name] = config
    if upstream:
        notes.insert(
            0,
            "GPassK-style template rewritten onto gpassk_oc's dataset and "
            "evaluator with convention names (see the file headers)",
        )
    return Plan(name, settings, configs, notes)


def generate(
    path: str | os.PathLike[str], name: str | None = None, warnings: list[str] | None = None
) -> list[ConfigData]:
    """The per-point configs of a template, in grid order; notes go to *warnings*."""
    plan = build(path, name)
    if warnings is not None:
        warnings += plan.notes
    return plan.configs
