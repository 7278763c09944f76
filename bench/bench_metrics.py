"""Benchmark: gpassk_oc.core.metrics.gpass_exact.g_pass_table vs OpenCompass's per-question G-Pass@k.

Workload: Q questions, n = 48 samples each, c ~ Uniform{0..n} (seeded), every
G-Pass@k_τ for k ∈ {4, 8, 16}, τ ∈ {0, .25, .5, .75, 1}, plus mG-Pass@k.

* ours: one g_pass_table call over all Q questions. "cold" clears the module's caches
  before each run (the honest figure, used for the speedup); "warm" reuses them.
* OpenCompass: compute_g_pass_at_k / compute_mg_pass_at_k per question and metric, as
  its BaseEvaluator.evaluate loops, on a random subsample, scaled linearly to Q.
* agreement: our per-question values vs OpenCompass's on the subsample (τ on the
  default grid, where OpenCompass's float ceiling happens to be right).

Usage: python bench/bench_metrics.py [--questions 100000] [--subsample 2000] [--seed 0]
The last line is `RESULT speedup_vs_opencompass=<ratio>`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from gpassk_oc.core.metrics import gpass_exact as metrics
from gpassk_oc.core.metrics.gpass_exact import g_pass_table  # noqa: E402

N = 48
KS = (4, 8, 16)
THRESHOLDS = (0.0, 0.25, 0.5, 0.75, 1.0)  # OpenCompass's list; also its key format
AGREE_TOL = 1e-9


def clear_caches() -> None:
    metrics._k_table.cache_clear()
    metrics._exact_tail_row.cache_clear()


def time_ours(counts: np.ndarray, repeats: int, cold: bool) -> tuple[float, object]:
    times, table = [], None
    for _ in range(repeats):
        if cold:
            clear_caches()
        start = time.perf_counter()
        table = g_pass_table(N, counts, ks=KS, thresholds=THRESHOLDS)
        times.append(time.perf_counter() - start)
    return statistics.median(times), table


def opencompass_per_question(oc, counts: np.ndarray) -> dict[str, np.ndarray]:
    """OpenCompass's per-question loop (icl_base_evaluator.BaseEvaluator.evaluate)."""
    out: dict[str, list[float]] = {}
    for c in counts.tolist():
        for k in KS:
            for t in THRESHOLDS:
                out.setdefault(f"G-Pass@{k}_{t}", []).append(
                    float(oc.compute_g_pass_at_k(n=N, c=c, k=k, t=t))
                )
            out.setdefault(f"mG-Pass@{k}", []).append(float(oc.compute_mg_pass_at_k(n=N, c=c, k=k)))
    return {key: np.asarray(values) for key, values in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument(
        "--subsample",
        type=int,
        default=2_000,
        help="questions timed with OpenCompass's functions (scaled up)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5, help="runs per timing (median)")
    args = parser.parse_args(argv)
    if args.questions < 1 or not 1 <= args.subsample <= args.questions:
        parser.error("need 1 <= --subsample <= --questions")

    rng = np.random.default_rng(args.seed)
    counts = rng.integers(0, N + 1, size=args.questions)
    sub = rng.choice(args.questions, size=args.subsample, replace=False)
    metrics_per_q = len(KS) * (len(THRESHOLDS) + 1)
    print(
        f"workload: {args.questions:,} questions, n={N}, c~Uniform{{0..{N}}} (seed {args.seed}), "
        f"k={list(KS)}, tau={list(THRESHOLDS)} + mG-Pass -> {metrics_per_q} metrics/question"
    )

    start = time.perf_counter()
    from opencompass.openicl.icl_evaluator import icl_base_evaluator as oc

    print(f"import opencompass evaluator: {time.perf_counter() - start:.1f} s (not timed below)")

    cold, table = time_ours(counts, args.repeats, cold=True)
    warm, _ = time_ours(counts, args.repeats, cold=False)
    print(f"ours  g_pass_table, cold cache: {cold * 1e3:9.2f} ms  (median of {args.repeats})")
    print(f"ours  g_pass_table, warm cache: {warm * 1e3:9.2f} ms  (median of {args.repeats})")

    oc.compute_g_pass_at_k(n=N, c=1, k=4, t=0.5)  # first scipy call pays one-off setup
    start = time.perf_counter()
    theirs = opencompass_per_question(oc, counts[sub])
    oc_sub = time.perf_counter() - start
    oc_scaled = oc_sub * args.questions / args.subsample
    calls = sum(len(THRESHOLDS) + 1 for _ in KS) * args.subsample
    print(
        f"opencompass per question: {oc_sub:.2f} s for {args.subsample:,} questions "
        f"({calls:,} calls), scaled to {args.questions:,}: {oc_scaled:.1f} s"
    )

    worst_key, worst = max(
        (
            (key, float(np.max(np.abs(table.per_question[key][sub] - values))))
            for key, values in theirs.items()
        ),
        key=lambda kv: kv[1],
    )
    agree = set(theirs) == set(table.per_question) and worst <= AGREE_TOL
    print(
        f"agreement on subsample: {'yes' if agree else 'NO'} "
        f"(max |ours - opencompass| = {worst:.3g} at {worst_key}; tolerance {AGREE_TOL:g})"
    )
    print(
        "means over all questions (%): "
        + ", ".join(
            f"{key}={value:.2f}"
            for key, value in table.percent().items()
            if key.endswith(("_0.5", "mG-Pass@16"))
        )
    )

    speedup = oc_scaled / cold
    print(
        f"speedup (opencompass scaled / ours cold): {speedup:.1f}x; vs ours warm: {oc_scaled / warm:.1f}x"
    )
    print(f"RESULT speedup_vs_opencompass={speedup:.1f}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
