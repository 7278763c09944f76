"""Rerun-interval coverage in small tables and near n = 2k, by simulated reruns (issue 35).

    PYTHONPATH=. .venv/bin/python bench/bench_small_tables.py          # 400 reruns per cell
    PYTHONPATH=. .venv/bin/python bench/bench_small_tables.py --quick  # a few cells, seconds

A cell is (difficulty scenario, questions Q, k, n, τ). One rerun draws counts
``c ~ Binomial(n, p_q)`` and computes the report's 95% rerun interval of G-Pass@k_τ with
``summarize_many`` (the report's own code); it covers when it holds the rerun truth, the
questions' mean of ``g(p_q)``. A rerun whose interval is not given ('no width': every
count 0 or n) counts as a miss. Scenarios:

* ``steady T=0.5`` … ``shaky T=1``: the demo's four simulated rows (``gpassk_oc.demo.
  simulation``), the 8 per-position rates repeated to Q questions (fixed questions: Q = 8
  is one split × language table, Q = 32 the demo's overall table);
* ``Beta(0.6,0.6)``: fresh rates p ~ Beta(0.6, 0.6) every rerun (LiveMathBench's shape).

Grid: Q ∈ {8, 16, 24, 32, 40, 100}, k ∈ {4, 8, 16}, n ∈ {2k, 3k, 48}, τ ∈ {0.5, 1.0}.
Beside each coverage, ``before`` is the same interval from the unbiased variances alone
(release 0.3's rule, which gave ``[no width]`` and the demo's under-coverage). Monte-Carlo
SE of a coverage near 0.95 at 400 reruns: 0.011.

With ``--table`` the full run writes docs/generated/bench-small-tables.md. Goals (printed
``goal met`` / ``NOT met``): no rerun of a cell whose value a rerun moves goes without a
width unless every count is 0 or n; every cell covers at least 0.93 − 2 SE; and in
[0.93, 0.97] within 2 SE. Last line:
``RESULT …``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_ci_coverage import g_of_p  # bench/ is on the path when run as a script

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.atoms import atoms_of
from gpassk_oc.demo.simulation import SHAKY, STEADY, success_probability

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "docs" / "generated" / "bench-small-tables.md"
QS = (8, 16, 24, 32, 40, 100)
KS = (4, 8, 16)
TAUS = (0.5, 1.0)
LEVEL = 0.95
GOAL = (0.93, 0.97)
Scenario = Callable[[np.random.Generator, int], np.ndarray]


def _demo(model: str, temperature: float) -> Scenario:
    rates = np.array([success_probability(model, i, temperature) for i in range(8)])
    return lambda rng, q: np.resize(rates, q)


SCENARIOS: dict[str, Scenario] = {
    "steady T=0.5": _demo(STEADY, 0.5),
    "steady T=1": _demo(STEADY, 1.0),
    "shaky T=0.5": _demo(SHAKY, 0.5),
    "shaky T=1": _demo(SHAKY, 1.0),
    "Beta(0.6,0.6)": lambda rng, q: rng.beta(0.6, 0.6, size=q),
}


def metrics_at(n: int) -> list[str]:
    """The grid's metrics whose k has n ∈ {2k, 3k, 48}."""
    return [f"G-Pass@{k}_{t}" for k in KS if n in (2 * k, 3 * k, 48) for t in TAUS]


def _before(n: int, c: np.ndarray, metrics: list[str]) -> np.ndarray:
    """Coverage bounds of the unbiased-only rule (release 0.3): (low, high) per metric."""
    specs = [stats.parse_metric(m) for m in metrics]
    atoms = atoms_of(n, c)
    low, high, _, _ = stats.rerun_interval(
        atoms.weight, atoms.values(specs), atoms.variances(specs), level=LEVEL
    )
    return np.stack([low, high])


def simulate(scenario: str, q: int, n: int, runs: int, seed: int) -> dict[str, dict[str, float]]:
    """Per metric at this (scenario, Q, n): coverage now and before, the share of reruns
    without a width, and the mean width (points)."""
    rng = np.random.default_rng(seed)
    metrics = metrics_at(n)
    rates = [SCENARIOS[scenario](rng, q) for _ in range(runs)]
    counts = [rng.binomial(n, p) for p in rates]
    truth = np.array([[g_of_p(m, p).mean() for m in metrics] for p in rates])
    cells = stats.summarize_many([(n, c) for c in counts], metrics, n_boot=0, level=LEVEL)
    low = np.array([[cell[m].rerun_low for m in metrics] for cell in cells])
    high = np.array([[cell[m].rerun_high for m in metrics] for cell in cells])
    # 'no width' is the honest answer only where every count is 0 or n (see the legend)
    moved = np.array([[not np.all((c == 0) | (c == n))] for c in counts])
    flat = np.array([[cell[m].rerun == "no width" for m in metrics] for cell in cells]) & moved
    old = np.array([_before(n, c, metrics) for c in counts])  # runs × 2 × M
    eps = 1e-12
    covered = (low - eps <= truth) & (truth <= high + eps)
    covered_before = (old[:, 0] - eps <= truth) & (truth <= old[:, 1] + eps)
    with np.errstate(invalid="ignore"):
        width = np.nanmean(np.where(np.isnan(low), np.nan, high - low), axis=0)
    return {
        m: {
            "cover": float(covered[:, j].mean()),
            "before": float(covered_before[:, j].mean()),
            "no_width": float(flat[:, j].mean()),
            "width": 100 * float(width[j]),
        }
        for j, m in enumerate(metrics)
    }


def grid(quick: bool) -> list[tuple[str, int, int]]:
    """(scenario, Q, n) of the run: the full grid, or a few telling cells with --quick."""
    if quick:
        return [("steady T=0.5", 32, 16), ("shaky T=0.5", 8, 16), ("Beta(0.6,0.6)", 8, 16)]
    ns = sorted({m for k in KS for m in (2 * k, 3 * k, 48)})
    return [(s, q, n) for s in SCENARIOS for n in ns for q in QS]


def _table(results: dict, runs: int) -> list[str]:
    """Markdown: one row per (scenario, metric, n), one column per Q: 'now (before)'."""
    se = math.sqrt(0.95 * 0.05 / runs)
    lines = [
        "<!-- generated by bench/bench_small_tables.py --table; do not edit, re-run it -->",
        f"Coverage of the 95% rerun interval over {runs} simulated reruns per cell "
        f"(Monte-Carlo SE ≈ {se:.3f}); in brackets the unbiased-variance-only rule of "
        "release 0.3. **Bold**: outside [0.93, 0.97] by more than 2 SE.",
        "",
        "| scenario | metric | n | " + " | ".join(f"Q={q}" for q in QS) + " |",
        "|---|---|---|" + "---|" * len(QS),
    ]
    keys = sorted({(s, m, n) for (s, q, n), per in results.items() for m in per})
    order = list(SCENARIOS)
    keys.sort(key=lambda x: (order.index(x[0]), stats.parse_metric(x[1]).k, x[1], x[2]))
    for s, m, n in keys:
        cells = []
        for q in QS:
            r = results.get((s, q, n), {}).get(m)
            if r is None:
                cells.append("")
                continue
            text = f"{r['cover']:.3f}"
            if not GOAL[0] - 2 * se <= r["cover"] <= GOAL[1] + 2 * se:
                text = f"**{text}**"
            cells.append(f"{text} ({r['before']:.2f})")
        lines.append(f"| {s} | {m} | {n} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="reruns per cell")
    parser.add_argument("--quick", action="store_true", help="3 (scenario, Q, n), 60 reruns")
    parser.add_argument("--table", action="store_true", help=f"write {TABLE.name}")
    parser.add_argument("--out", type=Path, default=TABLE, help="where --table writes")
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    runs = 60 if args.quick else args.runs
    start = time.perf_counter()
    results = {}
    for i, (s, q, n) in enumerate(grid(args.quick)):
        results[(s, q, n)] = simulate(s, q, n, runs, args.seed + i)
    se = math.sqrt(0.95 * 0.05 / runs)
    flat = [r["no_width"] for per in results.values() for r in per.values()]
    cover = [r["cover"] for per in results.values() for r in per.values()]
    below = sum(c < GOAL[0] - 2 * se for c in cover)
    outside = sum(not GOAL[0] - 2 * se <= c <= GOAL[1] + 2 * se for c in cover)
    lines = _table(results, runs)
    print("\n".join(lines[1:]))
    if args.table:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"\nwrote {args.out}")
    goals = [
        (
            max(flat) == 0,
            f"no rerun without a width unless every count is 0 or n (worst {max(flat):.3f})",
        ),
        (below == 0, f"every cell covers >= 0.93 - 2 SE ({below} of {len(cover)} below)"),
        (outside == 0, f"every cell in [0.93, 0.97] +- 2 SE ({outside} of {len(cover)} not)"),
    ]
    print()
    for ok, text in goals:
        print(f"goal {'met' if ok else 'NOT met'}: {text}")
    print(
        f"RESULT cells={len(cover)} coverage_min={min(cover):.3f} "
        f"coverage_max={max(cover):.3f} below={below} outside={outside} "
        f"no_width_max={max(flat):.3f} seconds={time.perf_counter() - start:.0f}"
    )


if __name__ == "__main__":
    main()
