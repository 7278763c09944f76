"""Benchmark-interval coverage in small tables (issue 35, item 4, the second interval kind).

    PYTHONPATH=. .venv/bin/python bench/bench_small_benchmark.py          # 400 runs per cell
    PYTHONPATH=. .venv/bin/python bench/bench_small_benchmark.py --quick  # two cells, seconds

``bench_small_tables.py`` measures the *rerun* interval in split × language tables of 8–100
questions; this measures the *benchmark* interval there (``report --interval benchmark`` or
``both``), which ``bench_ci_coverage.py`` measures only from 32 questions up. One run draws
Q questions with p ~ Beta(0.6, 0.6) (LiveMathBench's shape) and counts c ~ Binomial(n, p),
and computes the report's 95% benchmark interval with ``summarize_many`` (the report's own
code, 1000 resamples); it covers when it holds the population truth E g(p), exact through
the beta-binomial (``bench_ci_coverage.population_truth``). A run whose interval has no
width counts as a miss. Per cell: coverage, the share of runs whose interval lies wholly
*below* the truth (the side a skewed metric misses on), and the mean width.

The report marks such an interval ``!`` where it rests on too few questions for its
metric (:func:`gpassk_oc.core.uncertainty.bootstrap.benchmark_unreliable`); per cell
the share marked and the coverage of the others are given too. Goal (printed ``goal met``
/ ``NOT met``, then ``RESULT …`` last): every cell covers within [0.93, 0.97] ± 2 SE, or
its intervals without ``!`` or ``[no width]`` do (their exact binomial interval reaches
the band: ``bench_small_tables.cell_goal``). With ``--table`` the full run writes
docs/generated/bench-small-benchmark.md (``--out`` elsewhere).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
from bench_ci_coverage import BETA, population_truth
from bench_small_tables import GOAL, cell_goal, emit, table_parser
from provenance import header

from gpassk_oc.core.uncertainty import metric_intervals as stats

TABLE = Path(__file__).resolve().parents[1] / "docs" / "generated" / "bench-small-benchmark.md"
QS = (8, 16, 24, 32, 40)
#: (n, metric): the headline metrics at k = 8 (n = 2k) and k = 16 (n = 48, the paper's),
#: and G-Pass@4_1.0 (k = 4, n = 2k)
METRICS = (
    (8, "G-Pass@4_1.0"),
    (16, "G-Pass@8_0.5"),
    (16, "G-Pass@8_1.0"),
    (16, "mG-Pass@8"),
    (48, "G-Pass@16_0.75"),
    (48, "G-Pass@16_1.0"),
    (48, "mG-Pass@16"),
)
RESAMPLES = 1000


def simulate(q: int, n: int, metric: str, runs: int, seed: int) -> dict[str, float]:
    """Coverage of the benchmark interval, the share of intervals below the truth, and the
    mean width (points) over *runs* fresh question sets of one cell."""
    rng = np.random.default_rng(seed)
    truth = population_truth(metric)
    counts = [rng.binomial(n, rng.beta(*BETA, size=q)) for _ in range(runs)]
    cells = stats.summarize_many([(n, c) for c in counts], [metric], n_boot=RESAMPLES, seed=seed)
    low = np.array([cell[metric].ci_low for cell in cells])
    high = np.array([cell[metric].ci_high for cell in cells])
    # '!' (too few questions for this metric) and '[no width]' say the interval may not hold
    said = np.array([cell[metric].ci in ("unreliable", "no width") for cell in cells])
    covered = (low <= truth) & (truth <= high)
    with np.errstate(invalid="ignore"):
        return {
            "cover": float(np.mean(covered)),
            "below": float(np.mean(high < truth)),
            "width": 100 * float(np.nanmean(high - low)),
            "marked": float(np.mean(said)),
            "kept": int((~said).sum()),
            "cover_kept": float(covered[~said].mean()) if (~said).any() else math.nan,
        }


def lines_and_goal(results: dict, runs: int) -> tuple[list[str], list[str], str]:
    """The markdown table, the goal lines and the RESULT line."""
    se = math.sqrt(0.95 * 0.05 / runs)
    head = [
        "| n | metric | " + " | ".join(f"Q={q}" for q in QS) + " |",
        "|---|---|" + "---|" * len(QS),
    ]
    rows, outside = [], []
    for n, metric in METRICS:
        cells = []
        for q in QS:
            r = results.get((q, n, metric))
            if r is None:
                cells.append("")
                continue
            text = f"{r['cover']:.3f}"
            if not GOAL[0] - 2 * se <= r["cover"] <= GOAL[1] + 2 * se:
                outside.append((q, n, metric, r))
                text = f"**{text}**"
            kept = "—" if not r["kept"] else f"{r['cover_kept']:.3f}"
            miss = "" if cell_goal(r, se)[0] else " ✗"
            cells.append(
                f"{text} ({r['below']:.2f}; {r['width']:.1f}; {r['marked']:.2f}; {kept}){miss}"
            )
        rows.append(f"| {n} | {metric} | " + " | ".join(cells) + " |")
    table = [
        f"Coverage of the 95% benchmark interval over {runs} fresh Beta(0.6, 0.6) question "
        f"sets per cell (Monte-Carlo SE ≈ {se:.3f}; {RESAMPLES} resamples); in brackets the "
        "share of intervals wholly below the population truth, the mean width in points, the "
        "share the report marks `!` (or gives no width) and the coverage of the others "
        "(— where it marks all). **Bold**: outside [0.93, 0.97] by more than 2 SE; ✗: and "
        "the unmarked intervals not covering within the band either (exact binomial "
        "interval).",
        "",
        *head,
        *rows,
    ]
    missed = [(q, n, m, r) for q, n, m, r in outside if not cell_goal(r, se)[0]]
    goal = [
        f"goal {'met' if not missed else 'NOT met'}: every cell covers within [0.93, 0.97] "
        f"+- 2 SE, or its intervals without `!` do ({len(outside)} of {len(results)} "
        f"outside, {len(missed)} of them missing)"
    ] + [
        f"  outside: Q={q} n={n} {m}: coverage {r['cover']:.3f}, below the truth "
        f"{r['below']:.3f}, marked {r['marked']:.2f}"
        for q, n, m, r in outside
    ]
    inside = [r["marked"] for key, r in results.items() if key not in {o[:3] for o in outside}]
    goal.append(
        f"cost: the cells inside the band are marked in {np.mean(inside):.3f} of their runs "
        "on average (the mark goes by the number of questions, which cannot tell them apart)"
    )
    cover = [r["cover"] for r in results.values()]
    result = (
        f"RESULT cells={len(results)} outside={len(outside)} missed={len(missed)} "
        f"coverage_min={min(cover):.3f} coverage_max={max(cover):.3f}"
    )
    return table, goal, result


def main() -> None:
    parser = table_parser(__doc__, TABLE, "2 cells, 60 runs", 44)
    args = parser.parse_args()
    runs = 60 if args.quick else args.runs
    grid = (
        [(8, 16, "G-Pass@8_1.0"), (32, 16, "G-Pass@8_1.0")]
        if args.quick
        else [(q, n, m) for n, m in METRICS for q in QS]
    )
    start = time.perf_counter()
    results = {key: simulate(*key, runs, args.seed + i) for i, key in enumerate(grid)}
    table, goal, result = lines_and_goal(results, runs)
    lines = [
        *table,
        "",
        "```text",
        *goal,
        result,
        "```",
    ]
    emit(header(__file__), lines, result, args.out if args.table else None, start)


if __name__ == "__main__":
    main()
