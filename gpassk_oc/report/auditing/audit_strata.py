"""Stratified random draws for audit sheets: *size* split over strata as evenly as their
sizes allow (a small stratum gives all it has, the rest goes to the others), so rare
strata — the judge's "wrong" verdicts, say — are audited enough to estimate their rates.
One owner for the sample sheet (:mod:`gpassk_oc.report.commands.audit_command`) and the class sheet (:mod:`.audit_classes`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np

__all__ = ["allocate", "draw_stratified"]

T = TypeVar("T")


def allocate(sizes: dict[Any, int], total: int) -> dict[Any, int]:
    """Split *total* over strata as evenly as their sizes allow (water-filling)."""
    take = dict.fromkeys(sizes, 0)
    left = min(total, sum(sizes.values()))
    open_ = sorted(k for k, v in sizes.items() if v > 0)
    while left > 0 and open_:
        share = max(left // len(open_), 1)
        for key in list(open_):
            if left == 0:
                break
            add = min(share, sizes[key] - take[key], left)
            take[key] += add
            left -= add
            if take[key] == sizes[key]:
                open_.remove(key)
    return take


def draw_stratified(
    items: list[T],
    stratum: Callable[[T], Hashable],
    ident: Callable[[T], str],
    size: int,
    seed: int,
) -> list[T]:
    """A sample of *size* items stratified by *stratum*, ordered by stratum, then *ident*."""
    strata: dict[Any, list[T]] = {}
    for item in items:
        strata.setdefault(stratum(item), []).append(item)
    take = allocate({k: len(v) for k, v in strata.items()}, size)
    rng = np.random.default_rng(seed)
    out: list[T] = []
    for key in sorted(strata):
        members = strata[key]
        picked = rng.choice(len(members), size=take[key], replace=False)
        out += sorted((members[i] for i in picked), key=ident)
    return out
