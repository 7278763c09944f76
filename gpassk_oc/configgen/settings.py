"""A validated template as a frozen, typed object (pure).

:func:`gpassk_oc.configgen.schema.validate` builds one :class:`Settings` per template,
after every variable passed its check and the cross-field rules filled the derived
defaults; the generator (:mod:`.expand`) reads its attributes, never a dict by string.
The fields are the template variables — :data:`~gpassk_oc.configgen.schema.VARIABLES`
(minus the two model lists, parsed into ``models``) and
:data:`~gpassk_oc.configgen.reasoning_settings.REASONING_VARIABLES` — which stay the one source of
names, docs and checks; a test holds the two in step. Lists keep the exact values the
checks returned (the rendered configs print them), so treat them as read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

from gpassk_oc.configgen.model_specs import ModelSpec
from gpassk_oc.core.runs.run_spec import RunSpec

__all__ = ["Settings", "template_fields"]


@dataclass(frozen=True)
class Settings:
    """A validated template: its models, its notes, its run specs (one per k-list ×
    replication, in grid order, built once by the cross-field rules) and every variable
    (defaults filled)."""

    models: list[ModelSpec]
    notes: list[str]
    specs: list[RunSpec]
    temperatures: list[float]
    top_ps: list[float]
    ks: list[tuple[int, ...]]  # each k-list strictly increasing
    thresholds: tuple[Fraction, ...]  # exact τs
    replications: list[int] | None  # exactly one of replications / n is set
    n: int | None
    top_k: int
    repetition_penalty: float
    random_seed: int
    send_random_seed: bool
    max_out_len: int
    max_seq_len: int  # filled: max_out_len + 4096 when the template leaves it unset
    enable_prefix_caching: bool
    data_path: str
    version: str
    dataset_splits: list[str]
    dataset_languages: list[str]
    cot: bool
    eval_urls: list[str]
    eval_model_name: str | None  # None without eval_urls (rule-based checking)
    eval_prompt: str
    max_num_workers: int | None
    reasoning: bool | str  # 'auto', True or False
    think_tags: list[str]  # [opening, closing]

    @classmethod
    def build(
        cls,
        models: list[ModelSpec],
        values: Mapping[str, Any],
        notes: list[str],
        specs: list[RunSpec],
    ) -> Settings:
        """From the checked variable values (every template field present, no other)."""
        names = template_fields()
        if set(values) != set(names):  # a variable added to the table but not here, or back
            raise ValueError(
                f"Settings fields and template variables differ: {sorted(set(values) ^ set(names))}"
            )
        return cls(
            models=models, notes=notes, specs=specs, **{name: values[name] for name in names}
        )


def template_fields() -> list[str]:
    """The template variables among the fields (all but ``models``, ``notes``, ``specs``)."""
    return [f.name for f in fields(Settings) if f.name not in ("models", "notes", "specs")]
