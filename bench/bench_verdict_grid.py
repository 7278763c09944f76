"""Coverage and bias of the verdict-error correction across the cells users meet (issue 35).

    nice -n 10 .venv/bin/python bench/bench_verdict_grid.py           # the grid, into the docs
    .venv/bin/python bench/bench_verdict_grid.py --quick              # 2 scenarios, seconds
    .venv/bin/python bench/bench_verdict_grid.py --cells "0,8,280,48,100" --jobs 2

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

Cells outside the band are classified: within noise (``?``), boundary (``b``: above the
band, rates from an audit and a true rate of 0 — the audit finds none of that rate's
errors, and any interval for the rate holds 0), or beyond noise (``!``); a scenario with a
``!`` cell is re-measured with ``--recheck`` (1000) reruns on fresh seeds, and a cell
fails only when the re-measurement is also outside beyond noise. After the grid: the exact
coverage of the audit's interval for an error share (enumeration, :mod:`verdict_grid_audit`)
and the boundary check (``--boundary`` reruns, 300): the rates drawn as the report draws
them, and with a side where the audit found no error drawn as exactly 0.
``--cells "fp%,fn%,Q,n,source[,zero];…"`` runs only the named scenarios (``--reruns``,
1000 each) with the coverage given the audit's error count; ``--draws`` sets the rate
draws per audit (the report's 100).

``--diagnose`` also runs the issue's two cells with the prior held fixed (the 0.3 code:
the fitted prior passed in, so taken as known) and with the true prior, beside the default.
Prints ``goals met``/``NOT met`` per goal and ``RESULT …`` last; writes the table to
``docs/generated/verdict-error-grid.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from collections.abc import Sequence
from pathlib import Path

# one BLAS thread: the matrices here are small, and threads only contend on a shared machine
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_verdict_error import LEVEL, PRIOR, _audit_exact, _g
from provenance import cpu_seconds as _cpu
from provenance import header
from verdict_grid_audit import (
    boundary_lines,
    conditional_lines,
    enumeration_lines,
    exact_coverage,
)
from verdict_grid_cells import (
    BAND,
    BIAS_GOAL,
    KEYS,
    Scenario,
    Tally,
    any_outside,
    parse_cells,
    summary,
)

from gpassk_oc.core.uncertainty.corrected_estimates import _atoms, correct  # noqa: E402
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty, beta_moment
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.verdict_channel import fit_prior
from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit, _share_draws, rates_from_audit
from gpassk_oc.report.ranking.corrections import RATE_DRAWS

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "generated" / "verdict-error-grid.md"
FPS, FNS = (0.0, 0.005, 0.02, 0.03), (0.0, 0.03, 0.08, 0.12)
QS, NS = (50, 280), (16, 48)
SOURCES: tuple[str | int, ...] = ("stated", 100, 400)
N_BOOT = 1000
#: rate draws per audit (the report's; ``--draws`` sets it for a measurement)
DRAWS = {"n": RATE_DRAWS}


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
    return simulate(s, rng, seed, pop)[0]


def audited_rerun(s: Scenario, rng: np.random.Generator, seed: int, pop: np.ndarray) -> np.ndarray:
    """:func:`one_rerun`'s record, then a row of the audit: errors found among the
    "correct" and the "wrong" verdicts (x1, x0), and the exact coverage of each share's
    interval over the audit's draw from this run (nan: stated rates)."""
    rec, audit, (f1, f0) = simulate(s, rng, seed, pop)
    extra = np.full((1, len(KEYS)), np.nan)
    if audit is not None:
        extra[0, :4] = (
            audit.false_correct,
            audit.false_wrong,
            exact_coverage(f1, audit.n_correct, audit.audited_correct),
            exact_coverage(f0, audit.n_wrong, audit.audited_wrong),
        )
    return np.vstack([rec, extra])


def audited_rates(
    audit: SourceAudit, seed: int, how: str = "jeffreys"
) -> tuple[list[tuple[float, float]], np.ndarray]:
    """The point rates and (R × 1 × 2) draws the report takes from *audit*; *how*
    ``zero``: a side of the audit without errors draws its share as exactly 0 (the
    alternative the boundary check measures), the other side as the report draws it;
    ``plain``: both shares drawn plainly, not stratified (the draws before issue 35's
    audit fix, to measure what stratifying changed)."""
    points, drawn = rates_from_audit([audit], DRAWS["n"], seed=seed)
    draws = drawn["judge"]
    if how == "plain" or (how == "zero" and 0 in (audit.false_correct, audit.false_wrong)):
        shares = []
        rng = np.random.default_rng(seed)
        for x, m, total in (
            (audit.false_correct, audit.audited_correct, audit.n_correct),
            (audit.false_wrong, audit.audited_wrong, audit.n_wrong),
        ):
            if how == "plain":
                e = rng.beta(x + 0.5, m - x + 0.5, DRAWS["n"])
                e = (x + rng.binomial(total - m, e)) / total if total > m else e * 0 + x / m
            else:
                e = _share_draws(x, m, total, DRAWS["n"], rng)
            shares.append(np.zeros(DRAWS["n"]) if how == "zero" and x == 0 else e)
        draws = np.stack(audit.rates_of(*shares), axis=1)
    return [points["judge"]], draws[:, None, :]


def simulate(
    s: Scenario, rng: np.random.Generator, seed: int, pop: np.ndarray
) -> tuple[np.ndarray, SourceAudit | None, tuple[int, int]]:
    """:func:`one_rerun`'s record, the audit drawn (None: stated rates) and the run's
    errors among its "correct" and its "wrong" verdicts."""
    p = rng.beta(PRIOR.a, PRIOR.b, size=s.q)
    t = rng.binomial(s.n, p)
    kept = rng.binomial(t, 1 - s.fn)
    c = kept + rng.binomial(s.n - t, s.fp)
    questions = [((s.n, int(x)),) for x in c]
    audit = None
    if s.source == "stated":
        rates, draws = [(s.fp, s.fn)], None
    else:
        audit = _audit_exact(rng, t, kept, c, int(s.source), s.n)
        rates, draws = audited_rates(audit, seed, s.rates)
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
    return out, audit, (int((c - kept).sum()), int((t - kept).sum()))


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


def diagnose(reruns: int, seed: int, pop: np.ndarray, pool) -> list[str]:
    """The issue's cells under the three priors: the same question sets for each."""
    lines = [
        "| fp | fn | Q | n | rates | prior | reruns | G-Pass@16_1.0 rerun / benchmark "
        "| G-Pass@16_0.5 rerun / benchmark |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    todo = [
        (
            Scenario(base.fp, base.fn, base.q, base.n, base.source, prior),
            reruns,
            reruns,
            seed + 7919 * i,
            pop,
        )
        for i, base in enumerate(DIAGNOSE)
        for prior in ("held fixed", "true", "fitted")
    ]
    name = {"held fixed": "fitted, held fixed (0.3)", "true": "the true Beta(0.6, 0.6)"}
    for (s, *_), rec in zip(todo, pool.map(_run_packed, todo)):
        cov = rec[:, 1:, :].mean(axis=0)
        lines.append(
            f"| {s.label()} | {name.get(s.prior, 'fitted, its error carried (now)')} | "
            f"{len(rec)} | {cov[0, 3]:.3f} / {cov[1, 3]:.3f} | {cov[0, 2]:.3f} / "
            f"{cov[1, 2]:.3f} |"
        )
    return lines


def _run_audited(args: tuple) -> np.ndarray:
    s, reruns, seed, pop = args
    rng = np.random.default_rng(seed)
    return np.array([audited_rerun(s, rng, seed * 1000 + r, pop) for r in range(reruns)])


def remeasure(todo: Sequence[Scenario], reruns: int, seed: int, pop: np.ndarray, pool) -> dict:
    """{scenario: reruns × 4 × M} (:func:`audited_rerun`), fresh seeds."""
    # the same question sets and audits for one cell however its rates are drawn
    cells = list(dict.fromkeys((s.fp, s.fn, s.q, s.n, s.source) for s in todo))
    jobs = [
        (s, reruns, seed + 7919 * cells.index((s.fp, s.fn, s.q, s.n, s.source)), pop) for s in todo
    ]
    return dict(zip(todo, pool.map(_run_audited, jobs)))


def remeasure_lines(found: dict, flagged: set, keys: Sequence[str] = KEYS) -> tuple[list[str], int]:
    """The re-measured scenarios' rows and, per scenario with a cell below the band, the
    coverage of its first such cell given the errors the audit found on the rate's
    side; and how many cells are outside the band beyond noise again (failing)."""
    tally, lines, tables = Tally(), [], []
    for s, rec in found.items():
        lines.append(tally.add(s, rec[:, :3]))
        low = [(j, kind) for (t, j, kind) in sorted(flagged, key=str) if t == s]
        low = [(j, kind) for j, kind in low if rec[:, kind, j].mean() < BAND[0]]
        if low and s.source != "stated":
            j, kind = low[0]
            side = 1 if s.fn >= s.fp else 0  # x0 carries fn, x1 fp
            tables += ["", f"{s.label()}: {keys[j]} {('rerun', 'benchmark')[kind - 1]}"]
            tables += [""] + conditional_lines(
                rec[:, 3, side], rec[:, kind, j], rec[:, 3, 2 + side]
            )
    return lines + tables, tally.n["clearly_out"]


BOUNDARY = [
    Scenario(fp, fn, q, n, 100)
    for fp, fn, q, n in (
        (0, 0, 280, 48),
        (0.005, 0, 280, 48),
        (0, 0, 280, 16),
        (0, 0.03, 280, 48),
        (0, 0.08, 280, 48),
        (0.005, 0.03, 280, 48),
        (0.005, 0.03, 50, 16),
    )
]


def boundary_check(reruns: int, seed: int, pop: np.ndarray, pool) -> list[str]:
    """:data:`BOUNDARY` as the report draws the rates and with a side without errors
    drawn as exactly 0 (same question sets and audits)."""
    todo = [
        (Scenario(s.fp, s.fn, s.q, s.n, s.source, rates=how), reruns, reruns, seed + 31 * i, pop)
        for i, s in enumerate(BOUNDARY)
        for how in ("jeffreys", "zero")
    ]
    name = {"jeffreys": "Jeffreys draws (the report)", "zero": "no errors found: rate 0"}
    rows = [
        (s.label(), name[s.rates], len(rec), rec[:, 1:, :].mean(axis=0))
        for (s, *_), rec in zip(todo, pool.map(_run_packed, todo))
    ]
    return boundary_lines(rows, KEYS)


def _header(
    started: float, reruns: str, argv: Sequence[str] | None, script: str = __file__
) -> list[str]:
    """:func:`provenance.header` with this grid's reruns, level, resamples and rate draws."""
    detail = f"{reruns}; 95% intervals; {N_BOOT} bootstrap resamples, {DRAWS['n']} rate draws"
    return header(script, argv, detail, since=started)


def write_table(
    out: Path, rows: Sequence[str], summary: str, extra: Sequence[str], head: list[str]
) -> None:
    cols = " | ".join(f"{k} rerun / benchmark" for k in KEYS)
    text = head + [
        summary,
        "",
        f"| fp | fn | Q | n | rates | reruns | {cols} | bias (pts, largest) |",
        "|---|---|---|---|---|---|" + "---|" * len(KEYS) + "---|",
        *rows,
        *extra,
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(text) + "\n", encoding="utf-8")


def _sections(args, tally: Tally, pop: np.ndarray, pool) -> tuple[list[str], int | None]:
    """The re-measurement, the exact enumeration and the boundary check, as lines after
    the grid; and the re-measurement's failing cells (None: none re-measured)."""
    extra, failing = [], None
    if tally.recheck and args.recheck:
        found = remeasure(tally.recheck, args.recheck, args.seed + 70_000, pop, pool)
        lines, failing = remeasure_lines(found, tally.flagged)
        extra += [
            "",
            f"Scenarios with a cell outside the band beyond noise (not boundary), re-measured "
            f"with {args.recheck} reruns on fresh seeds; below each with a cell under the band, "
            "that cell's coverage given the errors the audit found on the rate's side "
            '(x0: among the audited "wrong" verdicts, which carry fn):',
            "",
            f"| fp | fn | Q | n | rates | reruns | {' | '.join(KEYS)} (rerun / benchmark) | bias |",
            "|---|---|---|---|---|---|" + "---|" * len(KEYS) + "---|",
            *lines,
        ]
    shares = [x / 100 for x in range(2, 15)]
    extra += [
        "",
        "Exact coverage of the audit's 95% interval for a stratum's error share e (Jeffreys, "
        "as the report draws it) when 50 verdicts of the stratum are audited, x ~ "
        "Binomial(50, e), by enumeration — no simulation:",
        "",
        *enumeration_lines(50, shares),
    ]
    if args.boundary:
        extra += [
            "",
            "Boundary check: the rates as the report draws them, and with a side where the "
            "audit found no errors drawn as exactly 0, on the same question sets and audits:",
            "",
            *boundary_check(args.boundary, args.seed + 90_000, pop, pool),
        ]
    return extra, failing


def _cells_only(args, pop: np.ndarray, argv: list[str] | None) -> int:
    """``--cells``: the named scenarios alone, ``--reruns`` each (1000), printed (and
    written to ``--out`` only when it is given)."""
    todo, started = parse_cells(args.cells), _cpu()
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        found = remeasure(todo, args.reruns or 1000, args.seed + 70_000, pop, pool)
    flagged = {(s, j, kind) for s in todo for j in range(len(KEYS)) for kind in (1, 2)}
    lines, failing = remeasure_lines(found, flagged)
    print("\n".join(lines))
    print(f"RESULT scenarios={len(todo)} failing={failing}")
    if args.out != OUT:
        reruns = f'--cells "{args.cells}", {args.reruns or 1000} reruns each'
        head = _header(started, reruns, argv)
        cols = " | ".join(f"{k} rerun / benchmark" for k in KEYS)
        table = [f"| fp | fn | Q | n | rates | reruns | {cols} | bias |"]
        table.append("|---|---|---|---|---|---|" + "---|" * len(KEYS) + "---|")
        args.out.write_text("\n".join(head + table + lines) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 scenarios, 20 reruns")
    parser.add_argument("--first", type=int, default=None, help="reruns before deciding (200)")
    parser.add_argument("--reruns", type=int, default=None, help="reruns at most (400)")
    parser.add_argument("--diagnose", type=int, default=None, help="reruns per diagnosis cell")
    parser.add_argument("--recheck", type=int, default=None, help="reruns to re-measure (1000)")
    parser.add_argument("--boundary", type=int, default=None, help="reruns per boundary cell")
    parser.add_argument("--draws", type=int, default=RATE_DRAWS, help="rate draws per audit")
    parser.add_argument("--cells", default="", help="only these: fp%%,fn%%,Q,n,source;…")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    pop = population()
    DRAWS["n"] = args.draws
    if args.cells:
        return _cells_only(args, pop, argv)
    most = args.reruns or (20 if args.quick else 400)
    first = min(args.first or (most if args.quick else 200), most)
    for name, quick, full in (("recheck", 4, 1000), ("boundary", 4, 300)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    started = _cpu()
    tally, rows = Tally(), []
    todo = [(s, first, most, args.seed + 101 * i, pop) for i, s in enumerate(scenarios(args.quick))]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        # scenarios are independent (each its own seed): the table is the same for any --jobs
        for (s, *_), rec in zip(todo, pool.imap(_run_packed, todo)):
            rows.append(tally.add(s, rec))
            print(rows[-1], flush=True)
        extra, failing = _sections(args, tally, pop, pool)
        n_diag = args.diagnose if args.diagnose is not None else (10 if args.quick else 450)
        diag = diagnose(n_diag, args.seed + 50_000, pop, pool) if n_diag else []
    if diag:
        extra += ["", "The issue's cells under three priors (same question sets):", "", *diag]
    print("\n".join(extra))
    reruns = (
        f"reruns: {most} per scenario with stated rates, audited {first} (or {most}); "
        f"re-measured {args.recheck}, boundary check {args.boundary}"
    )
    write_table(args.out, rows, summary(tally, failing), extra, _header(started, reruns, argv))
    n = tally.n
    goals = [
        (f"coverage in band: {n['inside']}/{n['cells']} cells", n["inside"] == n["cells"]),
        (
            f"no cell failing (outside beyond noise, not boundary, after re-measuring): "
            f"{n['clearly_out'] if failing is None else failing}",
            (n["clearly_out"] if failing is None else failing) == 0,
        ),
        (f"|bias| <= {BIAS_GOAL} pts beyond noise: {n['bias_beyond']} off", not n["bias_beyond"]),
    ]
    for text, ok in goals:
        print(f"goal {'met' if ok else 'NOT met'}: {text}")
    print(f"(worst cell: {tally.worst[1]}; {_cpu() - started:.0f} CPU s)")
    print(
        f"RESULT cells={n['cells']} in_band={n['inside']} noise={n['noise']} "
        f"boundary={n['boundary']} discrete={n['discrete']} clearly_out={n['clearly_out']} failing={failing} "
        f"bias_out={n['bias_out']} bias_beyond={n['bias_beyond']} reruns={n['reruns']} "
        f"goals_met={sum(ok for _, ok in goals)}/{len(goals)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
