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

A rerun whose interval the report marks ``unreliable`` (``!``: fewer than 4 questions
vary, :data:`gpassk_oc.core.uncertainty.interval_kinds.MIN_VARYING`, or more than
:data:`~gpassk_oc.core.uncertainty.interval_kinds.GUESSED_SHARE` of a G-Pass@k_τ<1
interval's variance is the fitted prior's guess, not the unbiased V(c)) or ``wide`` (``+``:
the fitted Beta's variances more than :data:`~gpassk_oc.core.uncertainty.interval_kinds.
WIDE_RATIO` times the shape-free grid prior's; only with ``--ends prior``: by default the
metrics so judged take the grid prior's variances) is counted per cell: the second table gives
the share of each mark, the coverage of the unflagged reruns (no mark, a width given) and ✗ where the cell misses
its goal; a line gives the coverage of each mark's reruns pooled by τ; a last table
prints, per question of one steady table, the true rerun variance beside V(c) and the
posterior ones (why G-Pass@k_0.5 over-covers).

With ``--table`` the full run writes docs/generated/bench-small-tables.md (``--out``
elsewhere; ``--prior`` / ``--near`` pass another :class:`~gpassk_oc.core.uncertainty.
atoms.Fallback` to ``summarize_many``, as does ``--ends``). Goals (printed ``goal met`` / ``NOT met``, then
the cells that miss theirs, each with its mean half-width against the SD of the value's
error, ``goals met`` / ``goals NOT met`` and ``RESULT …`` last): no
rerun of a cell whose value a rerun moves goes without a width unless every count is 0
or n; every cell covers within [0.93, 0.97] ± 2 SE, or the reruns whose cell carries no
mark (``!``, ``+``, ``[no width]``: each says why its interval is not to be trusted) cover
within the band (their exact 95% binomial interval reaches it); ``+`` reruns pooled by τ cover ≥ 0.97 − 2 SE
(they are wider than needed, as their legend says); cells inside the band are marked in
≤ 10% of their reruns on average; the unflagged reruns of every cell with ≥ 50 of them
cover ≥ 0.93 − 2 SE.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_ci_coverage import g_of_p  # bench/ is on the path when run as a script
from provenance import header
from scipy.stats import binomtest

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.atoms import DEFAULT_FALLBACK, Fallback, atoms_of
from gpassk_oc.core.uncertainty.difficulty_model import fit_beta, posterior_variance_table
from gpassk_oc.core.uncertainty.grid_prior import fit_grid, grid_posterior_variance_table
from gpassk_oc.core.uncertainty.interval_kinds import GUESSED_SHARE
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.rerun_variance import unbiased_variance_per_c
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


#: the reliability marks a rerun interval can carry, by status: '!' (too few questions
#: vary: coverage far off either way) and '+' (the fitted Beta's shape sets the width:
#: wider than needed); '*' (posterior) and plain intervals count as unflagged, '[no width]'
#: (no interval given, and the legend says why) as neither
FLAGS = {"unreliable": "!", "wide": "+"}


def simulate(
    scenario: str, q: int, n: int, runs: int, seed: int, fallback: Fallback = DEFAULT_FALLBACK
) -> dict[str, dict[str, float]]:
    """Per metric at this (scenario, Q, n): coverage now and before, the share of reruns
    per mark and the coverage of the reruns of each mark and of the unflagged ones, the
    share of reruns without a width, and the mean width (points)."""
    rng = np.random.default_rng(seed)
    metrics = metrics_at(n)
    rates = [SCENARIOS[scenario](rng, q) for _ in range(runs)]
    counts = [rng.binomial(n, p) for p in rates]
    truth = np.array([[g_of_p(m, p).mean() for m in metrics] for p in rates])
    cells = stats.summarize_many(
        [(n, c) for c in counts], metrics, n_boot=0, level=LEVEL, fallback=fallback
    )
    status = np.array([[cell[m].rerun for m in metrics] for cell in cells])
    value = np.array([[cell[m].value for m in metrics] for cell in cells])
    low = np.array([[cell[m].rerun_low for m in metrics] for cell in cells])
    high = np.array([[cell[m].rerun_high for m in metrics] for cell in cells])
    # 'no width' is the honest answer only where every count is 0 or n (see the legend)
    moved = np.array([[not np.all((c == 0) | (c == n))] for c in counts])
    flat = (status == "no width") & moved
    old = np.array([_before(n, c, metrics) for c in counts])  # runs × 2 × M
    eps = 1e-12
    covered = (low - eps <= truth) & (truth <= high + eps)
    covered_before = (old[:, 0] - eps <= truth) & (truth <= old[:, 1] + eps)
    with np.errstate(invalid="ignore"):
        width = np.nanmean(np.where(np.isnan(low), np.nan, high - low), axis=0)
    # '[no width]' says plainly that no interval is given (its legend says why)
    kept = ~np.isin(status, [*FLAGS, "no width"])
    out = {}
    for j, m in enumerate(metrics):
        r = {
            "cover": float(covered[:, j].mean()),
            "cover_kept": _share(covered[kept[:, j], j]),
            "kept": int(kept[:, j].sum()),
            "before": float(covered_before[:, j].mean()),
            "no_width": float(flat[:, j].mean()),
            "width": 100 * float(width[j]),
            # how far the value lands from its rerun truth: what a width should match
            "error_sd": 100 * float(np.std(value[:, j] - truth[:, j])),
        }
        for st, mark in FLAGS.items():
            on = status[:, j] == st
            r[mark] = float(on.mean())
            r[mark + "n"], r[mark + "covered"] = int(on.sum()), int(covered[on, j].sum())
        out[m] = r
    return out


def _share(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else math.nan


def cell_goal(r: dict, se: float) -> tuple[bool, str]:
    """The goal of one cell: coverage in [0.93, 0.97] within 2 SE; or, outside it, the
    reruns whose cell says nothing against its interval (no mark, a width given) cover
    within the band (their 95% exact binomial interval reaches it; met where every
    rerun is marked). That
    is the issue's "or the cell says plainly that its interval is unreliable", read per
    printed cell: a reader trusts an unmarked interval, and is told not to trust a marked
    one. Returns (met, 'in band' / 'over' / 'under')."""
    if GOAL[0] - 2 * se <= r["cover"] <= GOAL[1] + 2 * se:
        return True, "in band"
    over = r["cover"] > GOAL[1] + 2 * se
    if not r["kept"]:
        return True, "over" if over else "under"
    low, high = share_interval(round(r["cover_kept"] * r["kept"]), r["kept"])
    return low <= GOAL[1] and high >= GOAL[0], "over" if over else "under"


def share_interval(hits: int, m: int) -> tuple[float, float]:
    """The exact (Clopper–Pearson) 95% interval of a coverage share of *m* reruns: the
    one that stays honest at a handful of them (one unmarked rerun that misses is no
    evidence against a 95% interval)."""
    ci = binomtest(hits, m).proportion_ci(0.95, method="exact")
    return ci.low, ci.high


def grid(quick: bool) -> list[tuple[str, int, int]]:
    """(scenario, Q, n) of the run: the full grid, or a few telling cells with --quick."""
    if quick:
        return [("steady T=0.5", 32, 16), ("shaky T=0.5", 8, 16), ("Beta(0.6,0.6)", 8, 16)]
    ns = sorted({m for k in KS for m in (2 * k, 3 * k, 48)})
    return [(s, q, n) for s in SCENARIOS for n in ns for q in QS]


def _coverage_text(r: dict, se: float) -> str:
    text = f"{r['cover']:.3f}"
    if not GOAL[0] - 2 * se <= r["cover"] <= GOAL[1] + 2 * se:
        text = f"**{text}**"
    return f"{text} ({r['before']:.2f})"


def _flag_text(r: dict, se: float) -> str:
    kept = "—" if math.isnan(r["cover_kept"]) else f"{r['cover_kept']:.3f}"
    met, _ = cell_goal(r, se)
    return f"{r['!']:.2f} / {r['+']:.2f} / {kept}" + ("" if met else " ✗")


def pooled(results: dict, mark: str) -> dict[float, tuple[int, int]]:
    """(covered, total) of the reruns carrying *mark*, pooled over the grid by τ."""
    out = {}
    for tau in TAUS:
        hits = total = 0
        for per in results.values():
            for m, r in per.items():
                if stats.parse_metric(m).tau == tau:
                    hits, total = hits + r[mark + "covered"], total + r[mark + "n"]
        out[tau] = (hits, total)
    return out


def _pooled(results: dict) -> list[str]:
    """Coverage of the marked reruns pooled by τ, per mark."""
    return [
        f"`{mark}` at τ = {tau:g}: {hits / total:.3f} of {total} reruns covered"
        for mark in FLAGS.values()
        for tau, (hits, total) in pooled(results, mark).items()
        if total
    ]


def diagnosis(
    fallback: Fallback = DEFAULT_FALLBACK,
    scenario: str = "steady T=0.5",
    metric: str = "G-Pass@8_0.5",
) -> list[str]:
    """Why the steady G-Pass@k_0.5 cells over-covered: one simulated table (n = 2k,
    32 questions), per distinct (p, c): the true rerun variance Var(f(C) | p), the
    unbiased V(c), the posterior variance under a fitted Beta (the fallback before
    Fallback.ends)
    and under the fitted grid prior, and the one used."""
    spec = stats.parse_metric(metric)
    n, q = 2 * spec.k, 32
    rng = np.random.default_rng(1)
    p = SCENARIOS[scenario](rng, q)
    c = rng.binomial(n, p)
    atoms = atoms_of(n, c)
    beta = fit_beta(atoms.n, atoms.c, "the table", weight=atoms.weight)
    fitted = fit_grid(atoms.n, atoms.c, "the table", weight=atoms.weight)
    f = metric_per_c(spec, n)
    pmf = np.array([[math.comb(n, x) * r**x * (1 - r) ** (n - x) for x in range(n + 1)] for r in p])
    true = pmf @ f**2 - (pmf @ f) ** 2
    unbiased = unbiased_variance_per_c(spec, n)
    post = posterior_variance_table([spec], n, beta)[:, 0]
    grid = grid_posterior_variance_table([spec], n, fitted)[:, 0]
    used = atoms.variances([spec], atoms.prior(fallback.prior), fallback)[:, 0][atoms.inverse]
    by_beta = atoms.variances([spec], beta)[:, 0][atoms.inverse]
    by_grid = atoms.variances([spec], fitted)[:, 0][atoms.inverse]
    lines = [
        f"Per question of one simulated {scenario} table ({metric}, n = {n}, Q = {q}): "
        f"true rerun variance, unbiased V(c), posterior variance under a fitted "
        f"Beta({beta.a:.2f}, {beta.b:.2f}) and under the fitted grid prior, the one used.",
        "",
        "| p | c | questions | f(c) | true Var | V(c) | Beta posterior | grid posterior | used |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r, x in sorted({(round(float(a), 3), int(b)) for a, b in zip(p, c)}):
        rows = (np.round(p, 3) == r) & (c == x)
        i = int(np.flatnonzero(rows)[0])
        lines.append(
            f"| {r:.3f} | {x} | {int(rows.sum())} | {f[x]:.3f} | {true[i]:.1e} | "
            f"{unbiased[x]:.1e} | {post[x]:.1e} | {grid[x]:.1e} | {used[i]:.1e} |"
        )
    ratio = {k: v.sum() / true.sum() for k, v in (("beta", by_beta), ("grid", by_grid))}
    lines += [
        "",
        f"Sum over the questions: true {true.sum():.2e}, used {used.sum():.2e}; with the "
        f"Beta {ratio['beta']:.1f}× the truth (the SE {math.sqrt(ratio['beta']):.1f}×), "
        f"with the grid prior {ratio['grid']:.1f}× (the SE {math.sqrt(ratio['grid']):.1f}×).",
    ]
    return lines


def _table(results: dict, runs: int, fallback: Fallback) -> list[str]:
    """Markdown: the coverage table ('now (before)') and the flag table ('share flagged
    / coverage of the unflagged'), one row per (scenario, metric, n), one column per Q."""
    se = math.sqrt(0.95 * 0.05 / runs)
    head = [
        "| scenario | metric | n | " + " | ".join(f"Q={q}" for q in QS) + " |",
        "|---|---|---|" + "---|" * len(QS),
    ]
    lines = [
        f"Coverage of the 95% rerun interval over {runs} simulated reruns per cell "
        f"(Monte-Carlo SE ≈ {se:.3f}); in brackets the unbiased-variance-only rule of "
        "release 0.3. **Bold**: outside [0.93, 0.97] by more than 2 SE.",
        "",
        *head,
        *_rows(results, se, _coverage_text),
        "",
        "Share of reruns whose interval the report marks unreliable (`!`: fewer than 4 "
        f"questions vary{_guessed_text(fallback)}) / share marked wide (`+`: the fitted "
        "Beta's variance more than "
        "twice the shape-free grid prior's) / coverage among the reruns it marks neither "
        "way or gives no width (— where it does so in all). ✗: the cell misses its goal — "
        "outside [0.93, 0.97] by more than 2 SE, and its unmarked reruns (no `!`, `+` or "
        "`[no width]`) not covering within the band (their exact 95% binomial interval misses it).",
        "",
        *head,
        *_rows(results, se, _flag_text),
        "",
        "Coverage of the marked reruns, pooled over the grid: " + "; ".join(_pooled(results)) + ".",
        "",
        *diagnosis(fallback),
    ]
    return lines


def _guessed_text(fallback: Fallback) -> str:
    """The second reason for '!' where the rule gives it (Atoms.guessed: the report's)."""
    if fallback.ends != "grid" or fallback.prior != "beta":
        return ""
    return (
        f", or more than {GUESSED_SHARE:.0%} of the summed variance is the fitted prior's "
        "guess, not the unbiased estimate"
    )


def _rows(results: dict, se: float, text: Callable[[dict, float], str]) -> list[str]:
    lines = []
    keys = sorted({(s, m, n) for (s, q, n), per in results.items() for m in per})
    order = list(SCENARIOS)
    keys.sort(key=lambda x: (order.index(x[0]), stats.parse_metric(x[1]).k, x[1], x[2]))
    for s, m, n in keys:
        cells = []
        for q in QS:
            r = results.get((s, q, n), {}).get(m)
            cells.append("" if r is None else text(r, se))
        lines.append(f"| {s} | {m} | {n} | " + " | ".join(cells) + " |")
    return lines


def goals(results: dict, runs: int, fallback: Fallback) -> tuple[list[str], str]:
    """The verdict lines ('goal met' / 'goal NOT met', then the cells that miss theirs)
    and the RESULT line."""
    se = math.sqrt(0.95 * 0.05 / runs)
    cells = [((s, q, n, m), r) for (s, q, n), per in results.items() for m, r in per.items()]
    flat = max(r["no_width"] for _, r in cells)
    cover = [r["cover"] for _, r in cells]
    outside = sum(not GOAL[0] - 2 * se <= c <= GOAL[1] + 2 * se for c in cover)
    below = sum(c < GOAL[0] - 2 * se for c in cover)
    missed = [(key, r) for key, r in cells if not cell_goal(r, se)[0]]
    inside = [r for _, r in cells if cell_goal(r, se)[1] == "in band"]
    inside_flagged = float(np.mean([r["!"] + r["+"] for r in inside])) if inside else 0.0
    kept = [r for _, r in cells if r["kept"] >= 50]
    short = sum(r["cover_kept"] < GOAL[0] - 2 * math.sqrt(0.95 * 0.05 / r["kept"]) for r in kept)
    wide = {tau: hits / total for tau, (hits, total) in pooled(results, "+").items() if total}
    wide_low = [
        tau
        for tau, (hits, total) in pooled(results, "+").items()
        if total and hits / total < GOAL[1] - 2 * math.sqrt(0.97 * 0.03 / total)
    ]
    wide_text = ", ".join(f"τ = {t:g}: {c:.3f}" for t, c in wide.items()) or "none marked"
    checks = [
        (flat == 0, f"no rerun without a width unless every count is 0 or n (worst {flat:.3f})"),
        (
            not missed,
            f"every cell in [0.93, 0.97] +- 2 SE, or, where it is outside, its unmarked "
            f"reruns (no `!`, `+` or `[no width]`) covering within the band (exact 95% binomial) "
            f"({len(missed)} of {len(cells)} cells miss; {outside} outside the band)",
        ),
        (
            not wide_low,
            f"`+` reruns are wider than needed: pooled by τ they cover >= 0.97 - 2 SE "
            f"({wide_text})",
        ),
        (
            inside_flagged <= 0.1,
            f"cells inside the band are rarely marked `!` or `+` (mean share "
            f"{inside_flagged:.3f} <= 0.1)",
        ),
        (
            short == 0,
            f"unflagged reruns cover >= 0.93 - 2 SE in every cell with >= 50 of them "
            f"({short} of {len(kept)} below)",
        ),
    ]
    verdicts = [f"goal {'met' if ok else 'NOT met'}: {text}" for ok, text in checks]
    verdicts += [
        f"  misses: {s} Q={q} n={n} {m}: coverage {r['cover']:.3f}, `!` {r['!']:.2f}, "
        f"`+` {r['+']:.2f}, unflagged {r['cover_kept']:.3f} of {r['kept']}; mean half-width "
        f"{r['width'] / 2:.2f} points against an error SD of {r['error_sd']:.2f} "
        f"({r['width'] / 2 / r['error_sd']:.1f} SDs, 1.96 at the level)"
        for (s, q, n, m), r in missed
    ]
    verdicts.append("goals met" if all(ok for ok, _ in checks) else "goals NOT met")
    result = (
        f"RESULT prior={fallback.prior} near={fallback.near} ends={fallback.ends} "
        f"cells={len(cells)} "
        f"coverage_min={min(cover):.3f} coverage_max={max(cover):.3f} outside={outside} "
        f"below={below} "
        f"missed={len(missed)} wide_cover_min={min(wide.values(), default=math.nan):.3f} "
        f"no_width_max={flat:.3f} inside_marked={inside_flagged:.3f} unflagged_below={short}"
    )
    return verdicts, result


def table_parser(doc: str, table: Path, quick: str, seed: int) -> argparse.ArgumentParser:
    """The options a coverage bench of this kind takes: --runs, --quick (*quick* says
    what it runs), --table (write *table*), --out and --seed."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="reruns per cell")
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--table", action="store_true", help=f"write {table.name}")
    parser.add_argument("--out", type=Path, default=table, help="where --table writes")
    parser.add_argument("--seed", type=int, default=seed)
    return parser


def main() -> None:
    parser = table_parser(__doc__, TABLE, "3 (scenario, Q, n), 60 reruns", 35)
    parser.add_argument(
        "--prior",
        choices=("beta", "grid"),
        default=DEFAULT_FALLBACK.prior,
        help="the fallback's fitted difficulty prior (atoms.Fallback.prior)",
    )
    parser.add_argument(
        "--near",
        choices=("combine", "posterior"),
        default=DEFAULT_FALLBACK.near,
        help="2k <= n < 4k: V(c) combined with the posterior variance, or the latter alone",
    )
    parser.add_argument(
        "--ends",
        choices=("grid", "prior"),
        default=DEFAULT_FALLBACK.ends,
        help="metrics flat at both ends: the grid prior's posterior variances, or --prior's",
    )
    args = parser.parse_args()
    fallback = Fallback(args.prior, args.near, ends=args.ends)
    runs = 60 if args.quick else args.runs
    start = time.perf_counter()
    results = {}
    for i, (s, q, n) in enumerate(grid(args.quick)):
        results[(s, q, n)] = simulate(s, q, n, runs, args.seed + i, fallback)
    verdicts, result = goals(results, runs, fallback)
    # a section the docs include on its own (pymdownx.snippets markers, not rendered)
    lines = _table(results, runs, fallback) + [
        "",
        "<!-- --8<-- [start:result] -->",
        "```text",
        *verdicts,
        result,
        "```",
        "<!-- --8<-- [end:result] -->",
    ]
    emit(header(__file__), lines, result, args.out if args.table else None, start)


def emit(head: list[str], lines: list[str], result: str, out: Path | None, start: float) -> None:
    """Print the table, write it to *out* under *head* (:func:`provenance.header`) when
    given, and end with the RESULT line and the seconds taken."""
    print("\n".join(lines))
    if out is not None:
        out.write_text("\n".join(head + lines) + "\n", encoding="utf-8")
        print(f"\nwrote {out}")
    print(f"{result} seconds={time.perf_counter() - start:.0f}")


if __name__ == "__main__":
    main()
