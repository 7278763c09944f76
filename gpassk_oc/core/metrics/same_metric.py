"""Metric keys that name one metric by definition.

G-Pass@k_τ depends on τ only through the threshold m = max(⌈τ·k⌉, 1)
(:func:`~gpassk_oc.core.metrics.gpass_exact.threshold_count`): at k = 1 every τ asks for
1 of 1 draw right, so G-Pass@1_0.5, _0.75 and _1.0 are all pass@1; at k = 2 τ = 0.75 and
1.0 both ask for 2 of 2. Two specs are the same metric when they share the definition, k
and that threshold. ``plan`` plans each such group once; the report shows it as one
column, and its JSON says which keys are one metric (``same_as``, as ``plan``'s does).

Pure core: the registry's specs and the exact threshold only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gpassk_oc.core.metrics.gpass_exact import threshold_count
from gpassk_oc.core.metrics.registry import G_PASS, MG_PASS, MetricDef, MetricSpec

__all__ = [
    "merged_columns",
    "merged_name",
    "same_as",
    "same_metric_groups",
    "same_metric_lines",
    "same_reason",
]


def _identity(spec: MetricSpec) -> tuple[MetricDef, int, int | None]:
    """What a spec's value depends on: its definition, k and (with a τ) the threshold.
    mG-Pass@2 is (2/2)·G-Pass@2_1.0 (its sum over i = ⌈k/2⌉ + 1 … k has the one term
    i = 2, weight 2/k = 1), so it is that G-Pass; at any other k it is a weighted mean."""
    if spec.definition is MG_PASS and spec.k == 2:
        return G_PASS, 2, threshold_count(2, 1.0)
    need = threshold_count(spec.k, spec.tau) if spec.tau is not None else None
    return spec.definition, spec.k, need


def same_metric_groups(specs: Iterable[MetricSpec]) -> list[list[MetricSpec]]:
    """*specs* (each once) grouped by the metric they name, groups in the order of their
    first member and members in the given order; a group of one is a metric no other
    spec of *specs* names."""
    groups: dict[tuple[MetricDef, int, int | None], list[MetricSpec]] = {}
    for spec in dict.fromkeys(specs):
        groups.setdefault(_identity(spec), []).append(spec)
    return list(groups.values())


def same_reason(group: Sequence[MetricSpec]) -> str:
    """Why the keys of *group* (one of :func:`same_metric_groups`) are one metric."""
    taus = [s for s in group if s.definition is G_PASS]
    parts = []
    if len(taus) > 1:
        _, k, need = _identity(taus[-1])
        asks = "every τ asks" if k == 1 else "these τ ask"
        reason = f"at k = {k} {asks} for the same {need} of {k} draw"
        parts.append(reason + ("s right" if k > 1 else " right, so each is pass@1"))
    elif taus and (tau := taus[0].tau) is not None and tau != 1:
        # one G-Pass key beside mG-Pass@2: it asks for all k draws, as τ = 1 does
        _, k, need = _identity(taus[0])
        parts.append(
            f"at k = {k} τ = {float(tau):g} asks for {need} of {k} draws right, as τ = 1 does"
        )
    if any(s.definition is MG_PASS for s in group):
        parts.append(
            "mG-Pass@2 = (2/2)·G-Pass@2_1.0, the one term of its sum over i = ⌈k/2⌉ + 1 … k"
        )
    return "; ".join(parts)


def same_as(specs: Iterable[MetricSpec]) -> dict[str, dict[str, Any]]:
    """Per group of more than one key (:func:`same_metric_groups`), keyed by its last
    member (the largest τ: the one whose τ·k is the threshold), the other keys it stands
    for and why: ``{"G-Pass@1_1.0": {"keys": ["G-Pass@1_0.5", "G-Pass@1_0.75"],
    "reason": …}}``. Empty when every key names its own metric."""
    return {
        group[-1].key: {"keys": [s.key for s in group[:-1]], "reason": same_reason(group)}
        for group in same_metric_groups(specs)
        if len(group) > 1
    }


def merged_name(group: Sequence[MetricSpec]) -> str:
    """One header for a group's keys: the first key in full, then each other's τ part
    (``G-Pass@1_0.5 = _0.75 = _1.0``); a group of one is its key."""
    first, *rest = group
    return " = ".join([first.key] + [s.key.removeprefix(first.key.rsplit("_", 1)[0]) for s in rest])


def merged_columns(specs: Iterable[MetricSpec]) -> list[tuple[str, str]]:
    """One (key, header) per metric of *specs*, in order: the key of the group's last
    spec (its value is every member's) and :func:`merged_name` of the group."""
    return [(group[-1].key, merged_name(group)) for group in same_metric_groups(specs)]


def same_metric_lines(specs: Iterable[MetricSpec]) -> list[str]:
    """For a legend: per group of more than one key, its header and why it is shown once."""
    groups = [g for g in same_metric_groups(specs) if len(g) > 1]
    return [f"{merged_name(g)}: one metric, shown once: {same_reason(g)}." for g in groups]
