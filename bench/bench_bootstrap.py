"""Benchmark: percentile bootstrap, 10,000 resamples × 1,000 questions (n = 48 samples).

Times ``gpassk_oc.core.uncertainty.metric_intervals.bootstrap`` on the paper's metric set for k = 16 (G-Pass@16
at five thresholds, mG-Pass@16, pass@16, pass@1): resampling questions as multinomial
counts over the distinct c values, then one (10000 × atoms) @ (atoms × metrics) product
and the percentiles. Per-c metric tables are built once before timing (they are cached
in real use too); that one-off cost is printed separately, as is a paired comparison
(whose atoms are (c_A, c_B) pairs, so up to ~1000 of them).

Last line: ``RESULT bootstrap_seconds=<median of 5 runs>`` (goal ≤ 1 s on 2 cores).
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from gpassk_oc.core.uncertainty import metric_intervals as stats

QUESTIONS, N, RESAMPLES = 1000, 48, 10_000
METRICS = [f"G-Pass@16_{t}" for t in ("0.0", "0.25", "0.5", "0.75", "1.0")] + [
    "mG-Pass@16",
    "pass@16",
    "pass@1",
]


def main() -> None:
    rng = np.random.default_rng(0)
    p = rng.beta(0.7, 0.7, QUESTIONS)
    c = rng.binomial(N, p)
    c_b = rng.binomial(N, np.clip(p - 0.05, 0, 1))
    specs = [stats.parse_metric(m) for m in METRICS]

    start = time.perf_counter()
    atoms = stats.atoms_of(N, c)
    values = atoms.values(specs)
    print(
        f"per-c tables + atoms (one-off): {time.perf_counter() - start:.3f} s "
        f"({len(atoms.weight)} atoms, {len(specs)} metrics)"
    )

    times = []
    for seed in range(5):
        start = time.perf_counter()
        point, low, high = stats.bootstrap(atoms.weight, values, n_boot=RESAMPLES, seed=seed)
        times.append(time.perf_counter() - start)
    print(
        f"bootstrap {RESAMPLES} resamples × {QUESTIONS} questions: "
        + ", ".join(f"{t:.3f}" for t in times)
        + " s"
    )
    print(f"  mG-Pass@16 = {100 * point[5]:.2f} [{100 * low[5]:.2f}, {100 * high[5]:.2f}]")

    start = time.perf_counter()
    stats.summarize(N, c, METRICS, n_boot=RESAMPLES)
    print(f"summarize (bootstrap + rerun SE): {time.perf_counter() - start:.3f} s")
    start = time.perf_counter()
    stats.compare(N, c, N, c_b, METRICS, n_boot=RESAMPLES)
    print(f"paired compare: {time.perf_counter() - start:.3f} s")
    print(f"RESULT bootstrap_seconds={statistics.median(times):.4f}")


if __name__ == "__main__":
    main()
