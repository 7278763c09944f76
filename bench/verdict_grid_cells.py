"""The grid's scenarios and how ``bench_verdict_grid`` marks and counts its cells."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

BAND = (0.93, 0.97)
BIAS_GOAL = 0.3  # points
KEYS = ("G-Pass@4_0.5", "G-Pass@4_1.0", "G-Pass@16_0.5", "G-Pass@16_1.0")


@dataclass(frozen=True)
class Scenario:
    fp: float
    fn: float
    q: int
    n: int
    source: str | int  # "stated", or the audit's size
    prior: str = "fitted"  # --diagnose: "held fixed", "true"
    rates: str = "jeffreys"  # audited: the report's draws; "zero": 0 where none found; "plain"

    def label(self) -> str:
        rates = "stated" if self.source == "stated" else f"audit {self.source}"
        rates += {"zero": ", none found: 0", "plain": ", plain draws"}.get(self.rates, "")
        return f"{100 * self.fp:g}% | {100 * self.fn:g}% | {self.q} | {self.n} | {rates}"


def wilson(hits: float, m: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a binomial share."""
    share = hits / m
    centre = (share + z * z / (2 * m)) / (1 + z * z / m)
    half = z * math.sqrt(share * (1 - share) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return centre - half, centre + half


def any_outside(hits: np.ndarray, m: int) -> bool:
    """Some cell's coverage lies outside the band."""
    share = np.ravel(hits) / m
    return bool(np.any((share < BAND[0]) | (share > BAND[1])))


def boundary(s: Scenario) -> bool:
    """Rates from an audit with a true rate of 0: the audit finds no error on that side,
    and its interval for the rate holds 0 whatever it finds (module docstring)."""
    return s.source != "stated" and min(s.fp, s.fn) == 0


def share_coverages(s: Scenario) -> tuple[float, float]:
    """The exact coverage of the audit's interval for each side's error share ("correct",
    "wrong") at the scenario's expected shares (p has mean ½: half the samples truly
    correct) with half the audit on each side, as ``audit`` splits it (enumeration)."""
    from verdict_grid_audit import binomial_coverage

    m = int(s.source) // 2
    e1, e0 = s.fp / (s.fp + 1 - s.fn), s.fn / (s.fn + 1 - s.fp)
    return binomial_coverage(e1, m), binomial_coverage(e0, m)


def _mark_coverage(hits: float, m: int, s: Scenario | None = None) -> str:
    """The cell: plain inside the band; bold outside it with ``b`` (above the band under
    an audit with a true rate of 0), ``d`` (outside the band on the side where an audited
    share's own interval is, by exact enumeration: the audit's discreteness), ``?``
    (within noise) or ``!`` (beyond noise)."""
    share = hits / m
    if BAND[0] <= share <= BAND[1]:
        return f"{share:.3f}"
    if s is not None and s.source != "stated":
        if share > BAND[1] and boundary(s):
            return f"**{share:.3f}b**"
        sides = share_coverages(s)
        if (share > BAND[1] and max(sides) > BAND[1]) or (share < BAND[0] and min(sides) < BAND[0]):
            return f"**{share:.3f}d**"
    low, high = wilson(hits, m, 1.96)
    noise = high >= BAND[0] and low <= BAND[1]
    return f"**{share:.3f}{'?' if noise else '!'}**"


def _mark_bias(err: np.ndarray) -> tuple[str, bool]:
    """(cell, beyond noise) for the largest |bias| in points over the metrics."""
    bias = 100 * err.mean(axis=0)
    se = 100 * err.std(axis=0, ddof=1) / math.sqrt(len(err))
    j = int(np.argmax(np.abs(bias)))
    if abs(bias[j]) <= BIAS_GOAL:
        return f"{bias[j]:+.2f}", False
    beyond = abs(bias[j]) - 2 * se[j] > BIAS_GOAL
    return f"**{bias[j]:+.2f}{'!' if beyond else '?'}**", beyond


class Tally:
    """Counts over the grid's cells (``n``: cells, inside, boundary, noise, clearly_out —
    outside beyond noise, not boundary —, bias_out, bias_beyond, reruns), the scenarios
    with a clearly-out cell (``recheck``) and the cell nearest to leaving the band (or
    furthest out)."""

    def __init__(self) -> None:
        self.n: Counter[str] = Counter()
        self.worst: tuple[float, str] = (1.0, "")
        self.recheck: list[Scenario] = []
        self.flagged: set[tuple[Scenario, int, int]] = set()  # (scenario, metric, kind)

    def add(self, s: Scenario, rec: np.ndarray) -> str:
        m = len(rec)
        self.n["reruns"] += m
        parts = []
        for j, key in enumerate(KEYS):
            cells = []
            for kind in (1, 2):
                hits = float(rec[:, kind, j].sum())
                cell = _mark_coverage(hits, m, s)
                self.n["cells"] += 1
                marks = {"!": "clearly_out", "b": "boundary", "d": "discrete", "?": "noise"}
                self.n[marks.get(cell[-3], "inside")] += 1
                if cell.endswith("!**"):
                    self.flagged.add((s, j, kind))
                    self.recheck += [] if s in self.recheck else [s]
                gap = min(hits / m - BAND[0], BAND[1] - hits / m)
                if gap < self.worst[0] and not cell.endswith("b**"):
                    name = "rerun" if kind == 1 else "benchmark"
                    self.worst = (gap, f"{s.label()} {key} {name} {hits / m:.3f}")
                cells.append(cell)
            parts.append(" / ".join(cells))
        bias, beyond = _mark_bias(rec[:, 0, :])
        self.n["bias_out"] += bias.startswith("**")
        self.n["bias_beyond"] += beyond
        return f"| {s.label()} | {m} | " + " | ".join(parts) + f" | {bias} |"


def parse_cells(text: str) -> list[Scenario]:
    """``fp%,fn%,Q,n,source[,zero];…`` (source: stated, or the audit's size; ``zero``: a
    side of the audit without errors draws its rate as 0) → scenarios."""
    out = []
    for spec in filter(None, text.split(";")):
        fp, fn, q, n, src, *how = spec.split(",")
        source: str | int = src if src == "stated" else int(src)
        rates = how[0] if how else "jeffreys"
        out.append(Scenario(float(fp) / 100, float(fn) / 100, int(q), int(n), source, rates=rates))
    return out


def summary(tally: Tally, failing: int | None) -> str:
    n = tally.n
    checked = (
        f"{n['clearly_out']} beyond it (`!`), their scenarios re-measured below: {failing} "
        "cells outside beyond noise in the re-measurement (failing)"
        if failing is not None
        else f"{n['clearly_out']} beyond it (`!`), not re-measured"
    )
    return (
        f"Coverage in [{BAND[0]}, {BAND[1]}]: {n['inside']} of {n['cells']} cells. Outside: "
        f"{n['noise']} within binomial noise (`?`: the cell's 95% Wilson interval reaches the "
        f"band); {n['boundary']} boundary cells (`b`: above the band, rates from an audit and "
        f"a true rate of 0 — the audit finds none of that rate's errors and no interval for "
        f"the rate can exclude 0, see the boundary table); {n['discrete']} discreteness cells "
        "(`d`: outside on the side where an audited share's own interval lies at its "
        "expected share and the audit's labels, by exact enumeration, as in the enumeration "
        f"table); {checked}. Largest |bias| over the "
        f"metrics above {BIAS_GOAL} points: {n['bias_out']} scenarios, {n['bias_beyond']} "
        "beyond two standard errors."
    )
