"""Template in, config data out: load (or rewrite) a template, validate it, expand it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpassk_oc.configgen import gpassk
from gpassk_oc.configgen.expand import ConfigData, GridPoint, expand, grid_config, point_config
from gpassk_oc.configgen.loader import entry_lines, is_gpassk_style, read_variables
from gpassk_oc.configgen.model_limits import check_limits, unknown_line
from gpassk_oc.configgen.schema import BY_NAME, Settings, TemplateError, validate

__all__ = ["Plan", "template_variables", "load_template", "build", "generate"]


@dataclass
class Plan:
    """Everything one template expands to: validated settings, the per-point configs (in
    grid order), the grid config and the notes to show the user."""

    name: str
    settings: Settings
    configs: list[ConfigData]
    notes: list[str] = field(default_factory=list)
    #: values above a named model's limits (also in *notes*; refused by ``dump --strict``)
    limit_notes: list[str] = field(default_factory=list)
    #: the one line naming the models whose limits are unknown, or None
    limits_unknown: str | None = None

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
    settings = validate(variables, {} if upstream else entry_lines(path))
    notes += settings.notes
    points = expand(settings)
    configs = [point_config(settings, point, name, header) for point in points]
    notes += unsent_notes(settings, points, configs)
    _distinct(points, configs)
    limit_notes, unknown = check_limits(
        settings.models, settings.max_out_len, settings.max_seq_len, Path.cwd()
    )
    notes += limit_notes
    if upstream:
        notes.insert(
            0,
            "GPassK-style template rewritten onto gpassk_oc's dataset and "
            "evaluator with convention names (see the file headers)",
        )
    return Plan(name, settings, configs, notes, limit_notes, unknown_line(unknown))


def _distinct(points: list[GridPoint], configs: list[ConfigData]) -> None:
    """Two grid points of one template never write one file (compared ignoring case, as
    macOS and Windows file systems do)."""
    seen: dict[str, GridPoint] = {}
    for point, config in zip(points, configs):
        first = seen.setdefault(config.name.casefold(), point)
        if first is not point:
            raise TemplateError(
                f"{point.model.where} and {first.model.where} would both write "
                f"{config.name} (file names are compared ignoring case); give one an abbr",
                point.model.where,
            )


#: sampling knobs a config name carries: run-record key -> template variable
NAMED_KNOBS = {
    "top_p": "top_p",
    "top_k": "top_k",
    "repetition_penalty": "repetition_penalty",
    "seed": "random_seed",
}
_WHY_NOT_SENT = {
    "top_p": "send_top_p = False",
    "top_k": "extra_sampling = False; vLLM, LMDeploy and SGLang servers accept top_k and "
    "repetition_penalty with extra_sampling = True",
}
_WHY_NOT_SENT["repetition_penalty"] = _WHY_NOT_SENT["top_k"]


def unsent_notes(
    settings: Settings, points: list[GridPoint], configs: list[ConfigData]
) -> list[str]:
    """Dump-time notes naming every sampling knob a config's name carries but its model
    does not receive — read from the run record, which lists what each config sends."""
    unsent: dict[str, dict[str, None]] = {}  # model field -> template variables, in order
    for point, config in zip(points, configs):
        if point.greedy:  # greedy decoding: the other knobs do not apply
            continue
        record = config.data["datasets"][0]["eval_cfg"]["evaluator"]["run_record"]
        for key, variable in NAMED_KNOBS.items():
            if record.get(key) == "not sent":
                unsent.setdefault(point.model.field, {})[variable] = None
    notes = []
    seed_unsent = any("random_seed" in knobs for knobs in unsent.values())
    for spec in settings.models:
        knobs = [v for v in unsent.get(spec.field, {}) if v != "random_seed"]
        if knobs:
            shown = ", ".join(
                v if v == "top_p" else f"{v} = {getattr(settings, v)!r}" for v in knobs
            )
            why = "; ".join(dict.fromkeys(_WHY_NOT_SENT[v] for v in knobs))
            notes.append(
                f"{spec.field} ({spec.path}): its config names carry {shown}, but the "
                f"OpenAI-compatible config does not send {'it' if len(knobs) == 1 else 'them'} "
                f"({why})"
            )
    # the default seed is only the names' slot (docs/configgen.md says it is not sent); a
    # seed the user changed may be meant to act, so only then is its not being sent news
    if seed_unsent and settings.random_seed != BY_NAME["random_seed"].default:
        notes.append(
            f"random_seed: {settings.random_seed} is in the config names (rs"
            f"{settings.random_seed}) but sent to no model (send_random_seed = False: one "
            "fixed seed would make the n samples identical)"
        )
    return notes


def generate(
    path: str | os.PathLike[str], name: str | None = None, warnings: list[str] | None = None
) -> list[ConfigData]:
    """The per-point configs of a template, in grid order; notes go to *warnings*."""
    plan = build(path, name)
    if warnings is not None:
        warnings += plan.notes
    return plan.configs
