"""The sample-size plan as data: what ``gpassk-oc plan`` computes (:mod:`.plan_command`) and its
renderer prints (:mod:`.plan_markdown`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.sample_size import Difficulty

__all__ = ["Plan"]


@dataclass
class Plan:
    """Everything the planner prints (fractions; the renderers convert to points)."""

    level: float
    z: float
    kinds: tuple[str, ...]
    difficulty: Difficulty
    questions: int
    n: int
    metrics: list[MetricSpec]  # parsed once, from --metrics or the headline ones
    assumptions: list[str]
    grid_questions: list[int]
    grid_n: list[int]
    split: dict[str, dict[str, float]] = field(default_factory=dict)
    pilot: dict[str, dict[str, float | None]] = field(default_factory=dict)
    grid: dict[str, dict[str, list[list[float]]]] = field(default_factory=dict)
    target: float | None = None
    smallest: dict[str, dict[str, int | None]] = field(default_factory=dict)
    difference: float | None = None
    power: float = 0.8  # DEFAULT_POWER
    resolve: dict[str, dict[str, int | str | None]] = field(default_factory=dict)
    #: per metric and kind, why no n reaches --halfwidth (its ``smallest`` entry is None)
    unreachable: dict[str, dict[str, str]] = field(default_factory=dict)
    #: per metric and kind, why the pilot check could not be made (the pilot's own
    #: interval has no width, say; its ``pilot`` entry is None)
    pilot_unchecked: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the pilot check's disagreements: read before the numbers (printed first, and on
    #: stderr with the unreachable targets)
    warnings: list[str] = field(default_factory=list)
    #: headline metrics left out because they are the same metric as one planned for
    #: (G-Pass@1 at every τ): planned key -> the keys it stands for, and why
    same_as: dict[str, dict[str, Any]] = field(default_factory=dict)

    def unchecked_groups(self) -> dict[tuple[str, str], list[str]]:
        """The metrics of :attr:`pilot_unchecked` by (kind, reason), in their order."""
        groups: dict[tuple[str, str], list[str]] = {}
        for key, by_kind in self.pilot_unchecked.items():
            for kind, why in by_kind.items():
                groups.setdefault((kind, why), []).append(key)
        return groups
