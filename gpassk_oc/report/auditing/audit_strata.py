"""Stratified random draws for audit sheets: *size* split over strata as evenly as their
sizes allow (a small stratum gives all it has, the rest goes to the others), so rare
strata — the judge's "wrong" verdicts, say — are audited enough to estimate their rates.
A weight per stratum splits in proportion instead (``audit --wrong-share``).
One owner for the sample sheet (:mod:`gpassk_oc.report.commands.audit_command`) and the class sheet (:mod:`.audit_classes`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

import numpy as np

__all__ = ["allocate", "draw_stratified", "verdict_weights"]

T = TypeVar("T")


def allocate(
    sizes: dict[Any, int], total: int, weights: Mapping[Any, float] | None = None
) -> dict[Any, int]:
    """Split *total* over strata in proportion to *weights* (equal without them) as far as
    their sizes allow (water-filling): a stratum smaller than its share gives all it has
    and the rest is split again over the others; whole labels by largest remainder, ties
    to the stratum first in sorted order."""
    take = dict.fromkeys(sizes, 0)
    left = min(total, sum(sizes.values()))
    weight = {k: 1.0 if weights is None else float(weights[k]) for k in sizes}
    open_ = sorted(k for k, v in sizes.items() if v > 0 and weight[k] > 0)
    while left > 0 and open_:
        total_weight = sum(weight[k] for k in open_)
        quota = {k: left * weight[k] / total_weight for k in open_}
        full = [k for k in open_ if sizes[k] - take[k] <= quota[k]]
        for key in full:
            left -= sizes[key] - take[key]
            take[key] = sizes[key]
            open_.remove(key)
        if full:
            continue
        # every open stratum holds more than its quota: floors, then the remainders
        whole = {k: int(quota[k]) for k in open_}
        extra = left - sum(whole.values())
        ranked = sorted(open_, key=lambda k: -(quota[k] - whole[k]))  # stable: sorted ties
        for key in open_:
            take[key] += whole[key] + (key in ranked[:extra])
        left = 0
    return take


def verdict_weights(wrong_share: float) -> Callable[[list], dict] | None:
    """Weights for strata keyed (source, verdict correct): *wrong_share* of each source's
    labels on its "wrong" verdicts, the rest on its "correct" ones (None at ½: even)."""
    if wrong_share == 0.5:
        return None
    return lambda keys: {key: 1 - wrong_share if key[1] else wrong_share for key in keys}


def draw_stratified(
    items: list[T],
    stratum: Callable[[T], Hashable],
    ident: Callable[[T], str],
    size: int,
    seed: int,
    weights: Callable[[list], Mapping[Any, float]] | None = None,
) -> list[T]:
    """A sample of *size* items stratified by *stratum*, ordered by stratum, then *ident*;
    *weights* (from the strata's keys) splits *size* in proportion instead of evenly."""
    strata: dict[Any, list[T]] = {}
    for item in items:
        strata.setdefault(stratum(item), []).append(item)
    keys = list(strata)
    take = allocate(
        {k: len(v) for k, v in strata.items()}, size, weights(keys) if weights else None
    )
    rng = np.random.default_rng(seed)
    out: list[T] = []
    for key in sorted(strata):
        members = strata[key]
        picked = rng.choice(len(members), size=take[key], replace=False)
        out += sorted((members[i] for i in picked), key=ident)
    return out
