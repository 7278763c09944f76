"""Coverage and bias of the verdict-error correction across the cells users meet (issue 35).

    nice -n 10 .venv/bin/python bench/bench_verdict_grid.py           # the grid, into the docs
    .venv/bin/python bench/bench_verdict_grid.py --quick              # 2 scenarios, seconds

Each rerun draws a fresh question set, p ~ Beta(0.6, 0.6); a question's n samples are
correct with chance p; the checker turns each correct sample wrong with chance fn and each
wrong one correct with chance fp, independently. The corrected estimate
(:func:`gpassk_oc.core.uncertainty.corrected_estimates.correct`, as the report calls it)
is checked against the questions' truth, the mean of g(p) (rerun interval, bias), and the
population's, E g(p) (benchmark interval).

Grid: fp ∈ {0, 0.5, 2, 3}%, fn ∈ {0, 3, 8, 12}%, Q ∈ {50, 280}, n ∈ {16, 48}, the rates
stated exactly or measured by an audit of 100 or 400 verdicts (drawn from the run's own
samples, split over "correct" and "wrong" verdicts as ``gpassk-oc audit`` splits them, with
the report's 100 posterior draws); one corrected estimate per rerun gives every metric,
k ∈ {4, 16} × τ ∈ {0.5, 1.0}, and both interval kinds.

Reruns (the budget: ~15 CPU-minutes): stated rates ``--reruns`` (400) per scenario;
audited rates ``--first`` (200), going on to 400 when some cell of the scenario is outside
[0.93, 0.97] after them — there the verdict hangs on the reruns; a cell inside after 200
reruns is within the band up to its noise (one standard error 0.015). A cell is marked in
the table when its coverage lies outside [0.93, 0.97] (``?``: its 95% binomial (Wilson)
interval still reaches the band, so the miss may be noise; ``!``: it does not), and the
bias when |bias| > 0.3 points (``?``/``!`` likewise, by two standard errors).

``--diagnose`` also runs the issue's two cells with the prior held fixed (the 0.3 code:
the fitted prior passed in, so taken as known) and with the true prior, beside the default.
Prints ``goals met``/``NOT met`` per goal and ``RESULT …`` last; writes the table to
``docs/generated/verdict-error-grid.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import platform
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

# one BLAS thread: the matrices here are small, and threads only contend on a shared machine
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_verdict_error import LEVEL, PRIOR, _audit_exact, _g

from gpassk_oc.core.uncertainty.corrected_estimates import _atoms, correct  # noqa: E402
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty, beta_moment
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.verdict_channel import fit_prior
from gpassk_oc.core.uncertainty.verdict_rates import rates_from_audit
from gpassk_oc.report.ranking.corrections import RATE_DRAWS

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "generated" / "verdict-error-grid.md"
KEYS = ("G-Pass@4_0.5", "G-Pass@4_1.0", "G-Pass@16_0.5", "G-Pass@16_1.0")
FPS, FNS = (0.0, 0.005, 0.02, 0.03), (0.0, 0.03, 0.08, 0.12)
QS, NS = (50, 280), (16, 48)
SOURCES: tuple[str | int, ...] = ("stated", 100, 400)
BAND = (0.93, 0.97)
BIAS_GOAL = 0.3  # points
N_BOOT = 1000


@dataclass(frozen=True)
class Scenario:
    fp: float
    fn: float
    q: int
    n: int
    source: str | int  # "stated", or the audit's size
    prior: str = "fitted"  # --diagnose: "held fixed", "true"

    def label(self) -> str:
        rates = "stated" if self.source == "stated" else f"audit {self.source}"
        return f"{100 * self.fp:g}% | {100 * self.fn:g}% | {self.q} | {self.n} | {rates}"


def _truths(p: np.ndarray) -> np.ndarray:
    return np.array([float(_g(p, key).mean()) for key in KEYS])


def population() -> np.ndarray:
    """E g(p) under the population, per metric (exact beta moments)."""
    out = []
    for key in KEYS:
        kern = metric_per_c(key, int(key.split("@")[1].split("_")[0]))
        assert kern is not None
        out.append(beta_moment(list(kern), PRIOR))
    return np.array(out)


def one_rerun(s: Scenario, rng: np.random.Generator, seed: int, pop: np.ndarray) -> np.ndarray:
    """(3 × M): corrected − truth, rerun interval holds the truth, benchmark interval
    holds the population's."""
    p = rng.beta(PRIOR.a, PRIOR.b, size=s.q)
    t = rng.binomial(s.n, p)
    kept = rng.binomial(t, 1 - s.fn)
    c = kept + rng.binomial(s.n - t, s.fp)
    questions = [((s.n, int(x)),) for x in c]
    if s.source == "stated":
        rates, draws = [(s.fp, s.fn)], None
    else:
        audit = _audit_exact(rng, t, kept, c, int(s.source), s.n)
        points, drawn = rates_from_audit([audit], RATE_DRAWS, seed=seed)
        rates, draws = [points["judge"]], drawn["judge"][:, None, :]
    prior: Difficulty | None = None
    if s.prior == "true":
        prior = PRIOR
    elif s.prior == "held fixed":  # what 0.3 did: the fitted prior, taken as known
        atoms, weight, _ = _atoms(questions)
        prior = fit_prior(atoms, weight, rates)
    got = correct(
        questions, rates, KEYS, rate_draws=draws, prior=prior, n_boot=N_BOOT, seed=seed, level=LEVEL
    )
    truth = _truths(p)
    out = np.empty((3, len(KEYS)))
    for j, key in enumerate(KEYS):
        e = got[key]
        out[:, j] = (
            e.value - truth[j],
            e.rerun_low <= truth[j] <= e.rerun_high,
            e.ci_low <= pop[j] <= e.ci_high,
        )
    return out


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


def run_scenario(s: Scenario, first: int, most: int, seed: int, pop: np.ndarray) -> np.ndarray:
    """R × 3 × M records: stated rates *most* reruns; audited rates *first*, then up to
    *most* when some cell is outside the band (where the verdict hangs on the reruns)."""
    rng = np.random.default_rng(seed)
    start = most if s.source == "stated" else first
    rows = [one_rerun(s, rng, seed * 1000 + r, pop) for r in range(start)]
    if most > start and any_outside(np.array(rows)[:, 1:].sum(axis=0), start):
        rows += [one_rerun(s, rng, seed * 1000 + r, pop) for r in range(start, most)]
    return np.array(rows)


def _run_packed(args: tuple) -> np.ndarray:
    return run_scenario(*args)


def _mark_coverage(hits: float, m: int) -> str:
    share = hits / m
    if BAND[0] <= share <= BAND[1]:
        return f"{share:.3f}"
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
    """Counts over the grid's cells (``n``: cells, inside, clearly_out, bias_out,
    bias_beyond, reruns) and the cell nearest to leaving the band (or furthest out)."""

    def __init__(self) -> None:
        self.n: Counter[str] = Counter()
        self.worst: tuple[float, str] = (1.0, "")

    def add(self, s: Scenario, rec: np.ndarray) -> str:
        m = len(rec)
        self.n["reruns"] += m
        parts = []
        for j, key in enumerate(KEYS):
            cells = []
            for kind in (1, 2):
                hits = float(rec[:, kind, j].sum())
                share, (low, high) = hits / m, wilson(hits, m, 1.96)
                self.n["cells"] += 1
                self.n["inside"] += BAND[0] <= share <= BAND[1]
                self.n["clearly_out"] += high < BAND[0] or low > BAND[1]
                gap = min(share - BAND[0], BAND[1] - share)
                if gap < self.worst[0]:
                    name = "rerun" if kind == 1 else "benchmark"
                    self.worst = (gap, f"{s.label()} {key} {name} {share:.3f}")
                cells.append(_mark_coverage(hits, m))
            parts.append(" / ".join(cells))
        bias, beyond = _mark_bias(rec[:, 0, :])
        self.n["bias_out"] += bias.startswith("**")
        self.n["bias_beyond"] += beyond
        return f"| {s.label()} | {m} | " + " | ".join(parts) + f" | {bias} |"


def scenarios(quick: bool) -> list[Scenario]:
    if quick:
        return [Scenario(0.02, 0.08, 50, 16, "stated"), Scenario(0.005, 0.03, 50, 16, 100)]
    return [
        Scenario(fp, fn, q, n, src)
        for q in QS
        for n in NS
        for src in SOURCES
        for fp in FPS
        for fn in FNS
    ]


DIAGNOSE = (Scenario(0.02, 0.08, 280, 48, "stated"), Scenario(0.005, 0.03, 100, 16, "stated"))


def diagnose(reruns: int, seed: int, pop: np.ndarray) -> list[str]:
    """The issue's cells under the three priors: the same question sets for each."""
    lines = [
        "| fp | fn | Q | n | rates | prior | reruns | G-Pass@16_1.0 rerun / benchmark "
        "| G-Pass@16_0.5 rerun / benchmark |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, base in enumerate(DIAGNOSE):
        for prior in ("held fixed", "true", "fitted"):
            s = Scenario(base.fp, base.fn, base.q, base.n, base.source, prior)
            rec = run_scenario(s, reruns, reruns, seed + 7919 * i, pop)
            cov = rec[:, 1:, :].mean(axis=0)
            name = {"held fixed": "fitted, held fixed (0.3)", "true": "the true Beta(0.6, 0.6)"}
            lines.append(
                f"| {s.label()} | {name.get(prior, 'fitted, its error carried (now)')} | "
                f"{len(rec)} | {cov[0, 3]:.3f} / {cov[1, 3]:.3f} | {cov[0, 2]:.3f} / "
                f"{cov[1, 2]:.3f} |"
            )
    return lines


def _cpu() -> float:
    """CPU seconds of this process and its finished workers."""
    return sum(os.times()[:4])


def _header(started: float, reruns: str) -> list[str]:
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [
        "<!-- generated by bench/bench_verdict_grid.py; do not edit, re-run it -->",
        f"Measured {when} at commit `{commit}` on {platform.machine()}, "
        f"{_cpu() - started:.0f} CPU seconds, load average {load} at the end; "
        f"{reruns}; 95% intervals; {N_BOOT} bootstrap resamples, {RATE_DRAWS} rate draws.",
        "",
    ]


def write_table(
    out: Path, rows: Sequence[str], tally: Tally, diag: Sequence[str], head: list[str]
) -> None:
    cols = " | ".join(f"{k} rerun / benchmark" for k in KEYS)
    text = head + [
        f"Coverage in [{BAND[0]}, {BAND[1]}]: {tally.n['inside']} of {tally.n['cells']} cells; "
        f"{tally.n['clearly_out']} outside it beyond binomial noise (`!`: its 95% Wilson interval "
        f"clear of the band; `?`: outside, within noise). Largest |bias| over the metrics above {BIAS_GOAL} points: "
        f"{tally.n['bias_out']} scenarios, {tally.n['bias_beyond']} beyond two standard errors.",
        "",
        f"| fp | fn | Q | n | rates | reruns | {cols} | bias (pts, largest) |",
        "|---|---|---|---|---|---|" + "---|" * len(KEYS) + "---|",
        *rows,
    ]
    if diag:
        text += ["", "The issue's cells under three priors (same question sets):", "", *diag]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(text) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 scenarios, 20 reruns")
    parser.add_argument("--first", type=int, default=None, help="reruns before deciding (200)")
    parser.add_argument("--reruns", type=int, default=None, help="reruns at most (400)")
    parser.add_argument("--diagnose", type=int, default=None, help="reruns per diagnosis cell")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    most = args.reruns or (20 if args.quick else 400)
    first = min(args.first or (most if args.quick else 200), most)
    started = _cpu()
    pop = population()
    tally, rows = Tally(), []
    todo = [(s, first, most, args.seed + 101 * i, pop) for i, s in enumerate(scenarios(args.quick))]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        # scenarios are independent (each its own seed): the table is the same for any --jobs
        for (s, *_), rec in zip(todo, pool.imap(_run_packed, todo)):
            rows.append(tally.add(s, rec))
            print(rows[-1], flush=True)
    n_diag = args.diagnose if args.diagnose is not None else (10 if args.quick else 450)
    diag = diagnose(n_diag, args.seed + 50_000, pop) if n_diag else []
    print("\n".join(diag))
    reruns = f"reruns: {most} per scenario with stated rates, audited {first} (or {most})"
    write_table(args.out, rows, tally, diag, _header(started, reruns))
    goals = [
        (
            f"coverage in band: {tally.n['inside']}/{tally.n['cells']} cells",
            tally.n["inside"] == tally.n["cells"],
        ),
        (f"no cell outside beyond noise: {tally.n['clearly_out']}", tally.n["clearly_out"] == 0),
        (
            f"|bias| <= {BIAS_GOAL} pts beyond noise: {tally.n['bias_beyond']} off",
            not tally.n["bias_beyond"],
        ),
    ]
    for text, ok in goals:
        print(f"goal {'met' if ok else 'NOT met'}: {text}")
    print(f"(worst cell: {tally.worst[1]}; {_cpu() - started:.0f} CPU s)")
    print(
        f"RESULT cells={tally.n['cells']} in_band={tally.n['inside']} clearly_out={tally.n['clearly_out']} "
        f"bias_out={tally.n['bias_out']} bias_beyond={tally.n['bias_beyond']} reruns={tally.n['reruns']} "
        f"goals_met={sum(ok for _, ok in goals)}/{len(goals)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
