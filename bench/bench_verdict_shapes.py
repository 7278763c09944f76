"""The verdict-error correction when question difficulties are not Beta-shaped.

    nice -n 10 .venv/bin/python bench/bench_verdict_shapes.py            # the table, into the docs
    .venv/bin/python bench/bench_verdict_shapes.py --quick               # 3 populations, seconds

Every other verdict-error bench draws p ~ Beta(0.6, 0.6), the family of the correction's
own prior (:func:`gpassk_oc.core.uncertainty.verdict_channel.fit_prior`). Here the
populations are the shapes a leaderboard meets besides it:

* ``strong``: 70% of questions p ~ U(0.95, 1), the rest U(0, 0.6) (a strong model);
* ``steady``: 40% p ~ U(0.88, 0.97), the rest U(0.03, 0.12) (the demo's steady model);
* ``three``: p = 0.02, 0.5 or 0.98 (30%, 30%, 40%);
* ``Beta(0.6,0.6)`` and ``Beta(2,3)``, where the Beta prior is right;
* Beta(0.6, 0.6) with errors by answer form (``clustered errors``, drawn as
  bench/bench_verdict_clusters.py draws them at the cell's sample-level rates), where the
  independent-error model is wrong.

Each rerun draws a fresh question set; the checker flips samples with the stated rates,
each on its own as in bench/bench_verdict_grid.py (but for the clustered population), and
the report's correction (:func:`gpassk_oc.core.uncertainty.corrected_estimates.correct`)
corrects them. Printed per cell:
the bias of the corrected value (points, against the questions' truth), the coverage of
the rerun interval (these questions' truth) and of the benchmark interval (the
population's), the rerun interval's mean width, and how often the report flags the row
because the counts reject the correction's model
(:func:`gpassk_oc.core.uncertainty.corrected_grid.model_check`). Prints ``RESULT …`` last; writes
``docs/generated/verdict-error-shapes.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import bench_verdict_clusters as clusters  # noqa: E402
import numpy as np  # noqa: E402
from bench_verdict_error import LEVEL, _g  # noqa: E402
from provenance import cpu_seconds, header  # noqa: E402
from verdict_grid_cells import KEYS  # noqa: E402

from gpassk_oc.core.uncertainty.corrected_estimates import correct  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "generated" / "verdict-error-shapes.md"
#: (Q, n, fp, fn)
CELLS = ((280, 48, 0.02, 0.08), (280, 16, 0.02, 0.08), (50, 16, 0.005, 0.03), (50, 48, 0.03, 0.12))
#: Beta(0.6, 0.6) difficulties with errors by answer form (bench_verdict_clusters'
#: simulation): the other way off the model
CLUSTERED = "Beta(0.6,0.6), clustered errors"
POPULATIONS = ("strong", "steady", "three", "Beta(0.6,0.6)", "Beta(2,3)", CLUSTERED)


def draw_rates(name: str, rng: np.random.Generator, q: int) -> np.ndarray:
    """q success rates of the population *name* (module docstring)."""
    if name == "strong":
        return np.where(rng.random(q) < 0.7, rng.uniform(0.95, 1.0, q), rng.uniform(0, 0.6, q))
    if name == "steady":
        return np.where(rng.random(q) < 0.4, rng.uniform(0.88, 0.97, q), rng.uniform(0.03, 0.12, q))
    if name == "three":
        u = rng.random(q)
        return np.where(u < 0.3, 0.02, np.where(u < 0.6, 0.5, 0.98))
    a, b = (float(x) for x in name[len("Beta(") :].split(")")[0].split(","))
    return rng.beta(a, b, q)


def _on_model(name: str) -> bool:
    """Beta difficulties with independent errors: where the correction's model holds."""
    return name.startswith("Beta") and name != CLUSTERED


def population_truth(name: str) -> np.ndarray:
    """E g(p) over the population per metric (a 10⁶-question Monte-Carlo mean: SE < 0.05
    points, far below the interval widths measured)."""
    p = draw_rates(name, np.random.default_rng(12345), 1_000_000)
    return np.array([float(_g(p, key).mean()) for key in KEYS])


def run_cell(args: tuple) -> np.ndarray:
    """R × metrics × 5: bias, rerun hit, benchmark hit, rerun width, flagged (the counts
    reject the correction's model)."""
    name, (q, n, fp, fn), reruns, seed = args
    pop = population_truth(name)
    rng = np.random.default_rng(seed)
    out = np.empty((reruns, len(KEYS), 5))
    for r in range(reruns):
        if name == CLUSTERED:
            run = clusters.simulate(rng, q, n, fp, fn)
            p, c = run["p"], run["c"]
        else:
            p = draw_rates(name, rng, q)
            t = rng.binomial(n, p)
            c = rng.binomial(t, 1 - fn) + rng.binomial(n - t, fp)
        questions = [((n, int(x)),) for x in c]
        truth = np.array([float(_g(p, key).mean()) for key in KEYS])
        got = correct(questions, [(fp, fn)], KEYS, n_boot=400, seed=r, level=LEVEL)
        for j, key in enumerate(KEYS):
            e = got[key]
            out[r, j] = (
                e.value - truth[j],
                e.rerun_low <= truth[j] <= e.rerun_high,
                e.ci_low <= pop[j] <= e.ci_high,
                e.rerun_high - e.rerun_low,
                e.model_rejected,
            )
    return out


def table(results: dict[tuple[str, tuple], np.ndarray], reruns: int, seconds: float) -> str:
    lines = [
        f"{reruns} reruns per cell, 95% intervals, stated rates ({seconds:.0f} s wall on a "
        "shared 2-core machine). Bias of the corrected value (points, against the questions' "
        "truth), coverage of the rerun and of the benchmark interval, the rerun interval's "
        "mean width (points), and the share of reruns the report flags `‡` (the counts "
        "reject the correction's model). **Bold**: |bias| above 0.3 points.",
        "",
        "| population | Q | n | fp | fn | metric | bias | rerun | benchmark | width | flagged |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (name, (q, n, fp, fn)), rec in results.items():
        for j, key in enumerate(KEYS):
            m = rec[:, j].mean(axis=0)
            bias = f"{100 * m[0]:+.2f}"
            bias = f"**{bias}**" if abs(100 * m[0]) > 0.3 else bias
            lines.append(
                f"| {name} | {q} | {n} | {100 * fp:g}% | {100 * fn:g}% | {key} | {bias} | "
                f"{m[1]:.3f} | {m[2]:.3f} | {100 * m[3]:.1f} | {m[4]:.2f} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="three populations, one cell, 4 reruns")
    ap.add_argument("--reruns", type=int, default=150)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    pops, cells, reruns = POPULATIONS, CELLS, args.reruns
    if args.quick:
        pops, cells, reruns = ("strong", "Beta(0.6,0.6)", CLUSTERED), CELLS[:1], 4
    pairs = [(name, cell) for name in pops for cell in cells]
    todo = [(name, cell, reruns, 1000 + 7 * i) for i, (name, cell) in enumerate(pairs)]
    start, started = time.monotonic(), cpu_seconds()
    with multiprocessing.Pool(args.jobs) as pool:
        got = pool.map(run_cell, todo)
    seconds = time.monotonic() - start
    results = {(name, cell): rec for (name, cell, _, _), rec in zip(todo, got)}
    text = table(results, reruns, seconds)
    print(text)
    biased = [(name, rec) for (name, _), rec in results.items()]
    worst_off = max(
        (abs(r[:, :, 0].mean(axis=0)).max() * 100 for n, r in biased if not _on_model(n)),
        default=0.0,
    )
    false_alarm = max((r[:, 0, 4].mean() for n, r in biased if _on_model(n)), default=0.0)
    missed = [
        (n, cell)
        for (n, cell), r in results.items()
        if "Beta" not in n
        and abs(r[:, :, 0].mean(axis=0)).max() * 100 > 0.3
        and r[:, 0, 4].mean() < 0.95
    ]
    if not args.quick:
        head = header(__file__, argv, since=started)
        args.out.write_text("\n".join(head) + "\n" + text, encoding="utf-8")
    print(
        f"RESULT cells={len(results) * len(KEYS)} largest_bias_off_model={worst_off:.2f} "
        f"false_alarms_max={false_alarm:.3f} biased_cells_flagged_under_95pct={len(missed)}"
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
