"""Rank intervals and compare's P(A better than B), by simulation (issue 35, items 3 and 8).

    .venv/bin/python bench/bench_ranks_and_pairs.py            # full: writes the docs table
    .venv/bin/python bench/bench_ranks_and_pairs.py --quick    # a smoke run (seconds)

Models answer shared questions with p = Φ(θ_model + z_question), z ~ N(0, 1), n = 16
samples per question, 100 questions; the metric is G-Pass@8_0.5 (the helpers of
``bench_verdict_error``'s ranks cell).

* **ranks** — leaderboards of 10 and 40 rows whose neighbours are θ 0, 0.01, 0.03, 0.1
  and 0.3 apart: *tied* (equal models), *close*, *moderate*, *apart*, *far* (the table gives each
  spacing as the neighbours' true gap over the rerun SE of a row's value). Per interval
  kind: the share of rows whose rank interval holds the true rank (marginal coverage),
  the share of tables where every row's does (joint), and the mean width (ranks
  spanned), beside the Bonferroni intervals of 0.3.0 (``before``). True rank: 1 + rows
  truly better — on these questions (rerun) or on the population of questions
  (benchmark). Goals: close and moderate tables, marginal coverage in [0.93, 0.97]; apart
  and far tables, marginal coverage ≥ 0.95 (their ranks are nearly certain, so no honest
  interval misses 5% of them) and mean width no larger than before. Tied tables are
  shown without a goal (every row's true rank is 1 there), and so are small tables of
  2, 3 and 5 rows (normal noise, rows 0, 0.5 and 2 SEs apart).
* **P(A better than B)** — pairs with θ_B − θ_A uniform on ±SPREAD (about ±4.5 rerun
  standard errors of the difference: the printed P is a flat-prior reading, see the docs), and
  pairs known to be close (±NEAR_SPREAD, about one standard error; no goal):
  within each bin of the printed P (0–0.1, …, 0.9–1), the share of pairs where A is
  truly better. Goal: inside the binomial 95% band around the bin's mean printed P, for
  every bin with at least 20 pairs, both kinds.

Prints ``goal met`` / ``goal NOT met`` per goal and ``RESULT …`` last; the full run writes
docs/generated/ranks-and-pairs.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from bench_verdict_error import LEVEL, RANK_KEY, RANK_N, _g, _true_ranks
from provenance import cpu_seconds, header
from scipy.special import ndtr
from scipy.stats import binom

from gpassk_oc.core.metrics.registry import parse_metric
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.metric_intervals import compare, summarize
from gpassk_oc.core.uncertainty.rank_intervals import (
    _share_not_above,
    benchmark_draws,
    rank_intervals,
    rerun_draws,
)
from gpassk_oc.report.ranking.compare_ranks import prob_a_better

Q = 100
#: θ_B − θ_A is uniform on ±SPREAD: about ±4.5 standard errors of the difference, so the
#: true differences are flat on the scale P(A > B) reads them on
SPREAD = 0.3
#: pairs known to be close: true differences within about one standard error
NEAR_SPREAD = 0.05
OUT = Path(__file__).resolve().parent.parent / "docs" / "generated" / "ranks-and-pairs.md"
#: θ spacing of neighbouring rows (the table prints each as a share of the rerun SE):
#: tied (equal models), close, moderate, far apart
SPACING = {"tied": 0.0, "close": 0.01, "moderate": 0.03, "apart": 0.1, "far": 0.3}
KINDS = ("rerun", "benchmark")


def _population(theta: np.ndarray) -> np.ndarray:
    """E_z g(Φ(θ + z)) per model, by Gauss–Hermite quadrature."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()
    return np.array([weights @ _g(ndtr(th + nodes), RANK_KEY) for th in theta])


def before_intervals(points: np.ndarray, draws: np.ndarray) -> list[tuple[int, int]]:
    """0.3.0's rank intervals (Bonferroni over a row's N − 1 percentile tests), for the
    width they are compared with."""
    n = len(points)
    tail = (1 - LEVEL) / (2 * (n - 1))
    below = _share_not_above(draws)
    ranks = _true_ranks(points)
    out = []
    for a in range(n):
        others = np.arange(n) != a
        lo = 1 + int(((below[a] < tail) & others).sum())
        hi = n - int(((below[:, a] < tail) & others).sum())
        out.append((min(lo, int(ranks[a])), max(hi, int(ranks[a]))))
    return out


def _score(spans: list, truth: np.ndarray) -> tuple[int, bool, int]:
    held = [s[0] <= t <= s[1] for s, t in zip(spans, truth)]
    return sum(held), all(held), sum(s[1] - s[0] + 1 for s in spans)


def rank_cell(rows: int, spacing: float, reruns: int, seed: int, n_draws: int = 2000) -> dict:
    """{(kind, method): (marginal coverage, joint coverage, mean width)}."""
    rng = np.random.default_rng(seed)
    theta = spacing * (np.arange(rows) - (rows - 1) / 2)
    pop_rank = _true_ranks(np.round(_population(theta), 12))
    kern = metric_per_c(RANK_KEY, RANK_N)
    assert kern is not None
    tally: dict[tuple[str, str], np.ndarray] = {}
    gaps = []
    for r in range(reruns):
        z = rng.standard_normal(Q)
        p = ndtr(theta[:, None] + z[None, :])
        fixed = _true_ranks(np.round(np.array([_g(row, RANK_KEY).mean() for row in p]), 12))
        c = rng.binomial(RANK_N, p)
        ests = [summarize(RANK_N, row, [RANK_KEY], n_boot=0)[RANK_KEY] for row in c]
        points = np.array([e.value for e in ests])
        truths = np.sort([_g(row, RANK_KEY).mean() for row in p])
        gaps.append(np.diff(truths).mean() / np.nanmean([e.sampling_se for e in ests]))
        draws = {
            "rerun": rerun_draws(points, [e.sampling_se for e in ests], n_draws, r),
            "benchmark": benchmark_draws(kern[c].T, n_draws, r),
        }
        for kind, truth in (("rerun", fixed), ("benchmark", pop_rank)):
            for method, spans in (
                ("now", rank_intervals(points, draws[kind], LEVEL)),
                ("before", before_intervals(points, draws[kind])),
            ):
                got = np.array(_score(spans, truth), dtype=float)
                tally[(kind, method)] = tally.get((kind, method), 0) + got
    out: dict = {
        key: (v[0] / (reruns * rows), v[1] / reruns, v[2] / (reruns * rows))
        for key, v in tally.items()
    }
    out["gap"] = float(np.mean(gaps))  # neighbours' true gap / rerun SE of a row's value
    return out


def small_cell(rows: int, gap: float, tables: int, seed: int) -> float:
    """Marginal coverage in small tables (2–5 rows) of rows *gap* SEs apart, each row's
    mean drawn with unit normal noise and its draws normal around it (the rerun model)."""
    rng = np.random.default_rng(seed)
    truth = gap * np.arange(rows)
    ranks = _true_ranks(truth)
    held = 0
    for _ in range(tables):
        points = truth + rng.standard_normal(rows)
        spans = rank_intervals(points, points + rng.standard_normal((2000, rows)), LEVEL)
        held += _score(spans, ranks)[0]
    return held / (tables * rows)


def small_lines(tables: int, seed: int) -> list[str]:
    lines = ["| rows | gap / SE | marginal coverage |", "|---|---|---|"]
    for rows in (2, 3, 5):
        for gap in (0.0, 0.5, 2.0):
            lines.append(f"| {rows} | {gap:.1f} | {small_cell(rows, gap, tables, seed):.3f} |")
    return lines


BINS = np.linspace(0, 1, 11)


def pair_cell(
    pairs: int, seed: int, n_boot: int = 1000, spread: float = SPREAD
) -> dict[str, np.ndarray]:
    """Per kind, rows (pairs in bin, mean printed P, share truly better) over BINS, for
    pairs with θ_B − θ_A uniform on ±*spread*."""
    rng = np.random.default_rng(seed)
    spec = parse_metric(RANK_KEY)
    printed: dict[str, list[float]] = {k: [] for k in KINDS}
    better: dict[str, list[bool]] = {k: [] for k in KINDS}
    for i in range(pairs):
        theta = np.array([0.0, rng.uniform(-spread, spread)])
        z = rng.standard_normal(Q)
        p = ndtr(theta[:, None] + z[None, :])
        c = rng.binomial(RANK_N, p)
        n = np.full(Q, RANK_N)
        diffs = compare(n, c[0], n, c[1], [spec], n_boot=n_boot, seed=i)
        probs = prob_a_better(diffs, [spec], n_boot)[RANK_KEY]
        fixed = [_g(row, RANK_KEY).mean() for row in p]
        pop = _population(theta)
        for kind, truth in (("rerun", fixed[0] > fixed[1]), ("benchmark", pop[0] > pop[1])):
            if probs[kind] is not None:
                printed[kind].append(probs[kind])
                better[kind].append(bool(truth))
    out = {}
    for kind in KINDS:
        pr, tr = np.array(printed[kind]), np.array(better[kind])
        where = np.clip(np.digitize(pr, BINS) - 1, 0, len(BINS) - 2)
        out[kind] = np.array(
            [
                (m.sum(), pr[m].mean() if m.any() else np.nan, tr[m].mean() if m.any() else np.nan)
                for m in (where == b for b in range(len(BINS) - 1))
            ]
        )
    return out


def band(count: int, prob: float) -> tuple[float, float]:
    """The binomial 95% band of a share of *count* pairs with success chance *prob*."""
    lo, hi = binom.ppf([0.025, 0.975], count, prob)
    return lo / count, hi / count


def reliability_lines(
    table: dict[str, np.ndarray], name: str = "P(A>B)"
) -> tuple[list[str], list[tuple[str, bool]]]:
    lines = [
        "| kind | printed P | pairs | mean printed P | share A truly better | 95% band |",
        "|---|---|---|---|---|---|",
    ]
    goals = []
    for kind, rows in table.items():
        for b, (count, mean_p, share) in enumerate(rows):
            label = f"{BINS[b]:.1f}–{BINS[b + 1]:.1f}"
            if count < 20:
                lines.append(f"| {kind} | {label} | {int(count)} | — | — | (under 20 pairs) |")
                continue
            lo, hi = band(int(count), float(mean_p))
            lines.append(
                f"| {kind} | {label} | {int(count)} | {mean_p:.3f} | {share:.3f} | "
                f"[{lo:.3f}, {hi:.3f}] |"
            )
            goals.append(
                (f"{name} {kind} {label}: {share:.3f} in [{lo:.3f}, {hi:.3f}]", lo <= share <= hi)
            )
    return lines, goals


def rank_lines(cells: dict) -> tuple[list[str], list[tuple[str, bool]]]:
    lines = [
        "| rows | models | gap / SE | kind | marginal coverage | joint coverage | mean width | "
        "before: marginal | before: joint | before: width |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    goals = []
    for (rows, spread), got in cells.items():
        for kind in KINDS:
            m, j, w = got[(kind, "now")]
            bm, bj, bw = got[(kind, "before")]
            lines.append(
                f"| {rows} | {spread} | {got['gap']:.2f} | {kind} | {m:.3f} | {j:.3f} | {w:.2f} "
                f"| {bm:.3f} | {bj:.3f} | {bw:.2f} |"
            )
            name = f"{rows} rows, {spread}, {kind}"
            if spread == "tied":
                print(f"(no goal) ranks {name}: coverage {m:.3f}, before {bm:.3f}")
            elif spread in ("close", "moderate"):
                goals.append((f"ranks {name}: coverage {m:.3f} in [0.93, 0.97]", 0.93 <= m <= 0.97))
            else:
                goals.append(
                    (
                        f"ranks {name}: coverage {m:.3f} >= 0.95, width {w:.2f} <= before {bw:.2f}",
                        m >= 0.95 and w <= bw + 1e-9,
                    )
                )
    return lines, goals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few reruns per cell")
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args(argv)
    reruns = {10: 20, 40: 6} if args.quick else {10: 300, 40: 120}
    pairs = 150 if args.quick else 5000
    start, started = time.time(), cpu_seconds()
    cells = {}
    for rows in (10, 40):
        for spread, spacing in SPACING.items():
            cells[(rows, spread)] = rank_cell(rows, spacing, reruns[rows], args.seed + rows)
            print(f"ranks {rows} rows {spread} done ({time.time() - start:.0f} s)", flush=True)
    r_lines, goals = rank_lines(cells)
    tables = 60 if args.quick else 600
    s_lines = small_lines(tables, args.seed + 3)
    p_lines, p_goals = reliability_lines(pair_cell(pairs, args.seed + 1))
    goals += p_goals
    # pairs known to be close (within about one SE): no goal, the docs' caveat
    near_lines, near = reliability_lines(
        pair_cell(pairs // 4, args.seed + 2, spread=NEAR_SPREAD), "close pairs"
    )
    print("\n".join(r_lines + [""] + s_lines + [""] + p_lines + [""] + near_lines))
    for text, ok in near:
        print(f"(no goal) {text}{'' if ok else ' (outside)'}")
    for text, ok in goals:
        print(f"goal {'met' if ok else 'NOT met'}: {text}")
    met = sum(ok for _, ok in goals)
    took = time.time() - start
    if not args.quick:
        OUT.write_text(
            "\n".join(header(__file__, argv, since=started))
            + f"\nRank intervals ({reruns[10]} simulated tables of 10 rows, {reruns[40]} of 40; "
            f"{100 * LEVEL:g}% level):\n\n" + "\n".join(r_lines) + "\n\n"
            f"Small tables ({tables} each; normal noise, gap in SEs of one row's value; "
            "no goal):\n\n" + "\n".join(s_lines) + "\n\n"
            f"Reliability of P(A better than B) over {pairs} simulated pairs:\n\n"
            + "\n".join(p_lines)
            + f"\n\nThe same for {pairs // 4} pairs known to be close (θ_B − θ_A uniform on "
            f"±{NEAR_SPREAD}, about one standard error; no goal):\n\n"
            + "\n".join(near_lines)
            + f"\n\nGoals met: {met} of {len(goals)}.\n"
        )
    print(f"({took:.0f} s)")
    close = " ".join(
        f"rank_{spread}_{rows}_{kind}={cells[(rows, spread)][(kind, 'now')][0]:.3f}"
        for rows in (10, 40)
        for spread in ("close", "moderate")
        for kind in KINDS
    )
    in_band = sum(ok for _, ok in p_goals)
    print(f"RESULT {close} p_bins_in_band={in_band}/{len(p_goals)} goals_met={met}/{len(goals)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
