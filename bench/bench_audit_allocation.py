"""How an audit splits its verdicts over "correct" and "wrong", measured on the grid's `d` cells.

    nice -n 10 .venv/bin/python bench/bench_audit_allocation.py --jobs 2   # into the docs
    .venv/bin/python bench/bench_audit_allocation.py --quick               # seconds

The verdict-error grid (``bench_verdict_grid``) leaves some audited cells above the band
that it marks `d`: an audit of 100 splits 50/50 and a side's error share then rests on a
handful of labels, whose interval covers above its level (the docs' enumeration table).
This bench runs those scenarios (:data:`D_CELLS`) on the same question sets and audit
seeds under four designs of the same ``--size``:

* **even** — ``gpassk-oc audit`` today: half the labels on each side;
* **two-stage Neyman** — half the size split evenly first; from its counts each side's
  share is guessed, ê = (x + ½)/(m + 1), and the rest goes where the corrected accuracy's
  variance falls most: side totals m_s ∝ N_s·√(ê_s(1 − ê_s)) (Neyman allocation for the
  number of truly correct samples), the second batch filling each side's shortfall;
* **Neyman, true shares** — the same allocation in one stage with the run's true shares
  (no audit can know them: the best this kind of design can do);
* **one third on "correct"** — a fixed split, two thirds of the labels on the "wrong"
  verdicts, which carry fn (the larger rate in every `d` scenario).

``--cells "fp%,fn%,Q,n,size;…"`` runs other scenarios instead (written only to an
``--out`` that is given), e.g. those where fp is the larger rate. ``--grid SHARE``
(``--grid-audit 100``: audits of that size only) runs the verdict-error grid's audited
scenarios with its seeds and reruns, SHARE of each audit on the "wrong" verdicts, and
counts its cells beside the grid's own table (the even split).

Each rerun is a fresh question set as in the grid; the corrected estimate and both
intervals are as the report computes them (the audit's counts go into ``SourceAudit``
whatever the design: the shares' likelihood does not depend on how the sizes were chosen).
Prints coverage and mean interval width per design and ``RESULT …`` last; writes
``docs/generated/audit-allocation.md`` (``--out``) unless ``--quick`` or ``--cells``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from collections import Counter
from functools import partial
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_verdict_error import LEVEL, PRIOR, split_audit  # noqa: E402
from bench_verdict_grid import N_BOOT, _header, _truths, audited_rates, population  # noqa: E402
from provenance import cpu_seconds  # noqa: E402
from verdict_grid_cells import BAND, KEYS, Scenario, Tally, parse_cells  # noqa: E402

from gpassk_oc.core.uncertainty.corrected_estimates import correct  # noqa: E402
from gpassk_oc.core.uncertainty.verdict_rates import SourceAudit  # noqa: E402
from gpassk_oc.report.auditing.audit_strata import allocate  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "generated" / "audit-allocation.md"
DESIGNS = ("even", "two-stage", "oracle", "third")
NAMES = {
    "even": "even (today)",
    "two-stage": "two-stage Neyman",
    "oracle": "Neyman, true shares",
    "third": 'one third on "correct"',
}
#: the grid's `d` scenarios (docs/generated/verdict-error-grid.md): fp, fn, Q, n, audit size
D_CELLS = parse_cells(
    "0.5,3,50,16,100;2,3,50,16,100;2,8,50,16,100;2,12,50,16,100;0.5,8,50,16,400;"
    "0.5,12,50,16,400;2,3,50,48,100;2,3,280,16,100;3,3,280,16,100;0.5,12,280,16,400;"
    "0.5,3,280,48,100;3,3,280,48,100;0.5,3,280,48,400"
)


def neyman(sizes: tuple[int, int], shares: tuple[float, float], total: int) -> tuple[int, int]:
    """Labels per side (m1, m0) ∝ N_s·√(e_s(1 − e_s)), at most N_s each, summing to
    *total* (capped by the verdicts there are)."""
    weight = [n * np.sqrt(e * (1 - e)) for n, e in zip(sizes, shares)]
    total = min(total, sum(sizes))
    m1 = int(round(total * weight[0] / sum(weight))) if sum(weight) > 0 else total // 2
    m1 = min(max(m1, total - sizes[1]), sizes[0])
    return m1, total - m1


def _draw(rng, errors: int, size: int, m: int) -> int:
    return int(rng.hypergeometric(errors, size - errors, m)) if m else 0


def audit_of(design: str, rng, sizes, errors, size: int) -> SourceAudit:
    """The audit of *size* labels under *design*: sizes (N1, N0) of the verdict sides,
    errors (let-through among N1, rejected-correct among N0), drawn without replacement."""
    if design in ("oracle", "third"):
        m = neyman(sizes, (errors[0] / sizes[0], errors[1] / sizes[1]), size)
        if design == "third":
            m = split_audit(*sizes, size, 0.67)
        x = [_draw(rng, errors[s], sizes[s], m[s]) for s in (0, 1)]
        return SourceAudit("judge", sizes[0], sizes[1], m[0], x[0], m[1], x[1])
    first = size // 2 if design == "two-stage" else size
    take = allocate({1: sizes[0], 0: sizes[1]}, first)
    m = [take[1], take[0]]
    x = [_draw(rng, errors[s], sizes[s], m[s]) for s in (0, 1)]
    if design == "two-stage":
        guess = tuple((x[s] + 0.5) / (m[s] + 1) for s in (0, 1))
        target = neyman(sizes, guess, size)  # type: ignore[arg-type]
        short = [max(target[s] - m[s], 0) for s in (0, 1)]
        rest = min(size, sum(sizes)) - sum(m)
        add0 = int(round(rest * short[0] / sum(short))) if sum(short) else rest // 2
        add = [min(add0, sizes[0] - m[0]), 0]
        add[1] = min(rest - add[0], sizes[1] - m[1])
        for s in (0, 1):  # the second batch from the verdicts the first left
            x[s] += _draw(rng, errors[s] - x[s], sizes[s] - m[s], add[s])
            m[s] += add[s]
    return SourceAudit("judge", sizes[0], sizes[1], m[0], x[0], m[1], x[1])


def one_rerun(s: Scenario, seed: int, pop: np.ndarray) -> np.ndarray:
    """(designs × 5 × M): covers (rerun, benchmark), widths (rerun, benchmark) in points,
    corrected − truth; then the labels on the "correct" side in column 0 of a sixth row."""
    rng = np.random.default_rng(seed)
    p = rng.beta(PRIOR.a, PRIOR.b, size=s.q)
    t = rng.binomial(s.n, p)
    kept = rng.binomial(t, 1 - s.fn)
    c = kept + rng.binomial(s.n - t, s.fp)
    sizes = (int(c.sum()), int((s.n - c).sum()))
    errors = (int((c - kept).sum()), int((t - kept).sum()))
    questions = [((s.n, int(x)),) for x in c]
    truth = _truths(p)
    out = np.full((len(DESIGNS), 6, len(KEYS)), np.nan)
    for d, design in enumerate(DESIGNS):
        audit = audit_of(design, np.random.default_rng(seed + 1), sizes, errors, int(s.source))
        rates, draws = audited_rates(audit, seed)
        got = correct(
            questions, rates, KEYS, rate_draws=draws, n_boot=N_BOOT, seed=seed, level=LEVEL
        )
        for j, key in enumerate(KEYS):
            e = got[key]
            out[d, :5, j] = (
                e.rerun_low <= truth[j] <= e.rerun_high,
                e.ci_low <= pop[j] <= e.ci_high,
                100 * (e.rerun_high - e.rerun_low),
                100 * (e.ci_high - e.ci_low),
                100 * (e.value - truth[j]),
            )
        out[d, 5, 0] = audit.audited_correct
    return out


def _run(args: tuple) -> np.ndarray:
    s, reruns, seed, pop = args
    return np.array([one_rerun(s, seed * 10_000 + r, pop) for r in range(reruns)])


def _cell(share: float) -> str:
    return f"{share:.3f}" if BAND[0] <= share <= BAND[1] else f"**{share:.3f}**"


def table(found: dict) -> tuple[list[str], np.ndarray]:
    """The table's lines and per design (outside the band, cells) over all scenarios."""
    cols = " | ".join(f"{k} rerun / benchmark (width)" for k in KEYS)
    lines = [f'| fp | fn | Q | n | audit | design | "correct" labels | {cols} |']
    lines.append("|---|---|---|---|---|---|---|" + "---|" * len(KEYS))
    outside = np.zeros((len(DESIGNS), 2), dtype=int)
    for s, rec in found.items():
        for d, design in enumerate(DESIGNS):
            mean = rec[:, d].mean(axis=0)
            cov = mean[:2]
            bad = (cov < BAND[0]) | (cov > BAND[1])
            outside[d] += (int(bad.sum()), bad.size)
            cells = " | ".join(
                f"{_cell(cov[0, j])} / {_cell(cov[1, j])} ({mean[2, j]:.1f} / {mean[3, j]:.1f})"
                for j in range(len(KEYS))
            )
            label = s.label().replace("audit ", "")
            lines.append(f"| {label} | {NAMES[design]} | {mean[5, 0]:.0f} | {cells} |")
    return lines, outside


def bench_args(argv: list[str] | None, doc: str, quick: str, reruns: str, out: Path):
    """The arguments both small benches take (this one and ``bench_prior_refit``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--reruns", type=int, default=None, help=f"reruns per scenario ({reruns})")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--cells", default="", help="only these: fp%%,fn%%,Q,n,size;…")
    parser.add_argument("--grid", type=float, default=0.0, help="the grid's audits at this split")
    parser.add_argument("--grid-audit", type=int, default=0, help="--grid: only this audit size")
    return parser.parse_args(argv)


def run_cells(run, cells: list[Scenario], jobs: list[tuple], workers: int) -> dict:
    """{scenario: its records}, the scenarios in *workers* processes."""
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return dict(zip(cells, pool.map(run, jobs)))


def write_generated(out: Path, head: list[str], summary: str, lines: list[str]) -> None:
    """The generated docs table: the header (:func:`provenance.header`), the summary, the table."""
    out.write_text("\n".join(head + [summary + ".", "", *lines]) + "\n", encoding="utf-8")


def _marks(rows: list[str]) -> Counter:
    """Cells per mark over grid table rows (``inside`` unmarked)."""
    out: Counter = Counter()
    for row in rows:
        for cell in row.split("|")[7:-2]:
            for part in cell.split("/"):
                out[
                    {"b": "boundary", "d": "discrete", "?": "noise", "!": "beyond"}.get(
                        part.strip()[-3:-2], "inside"
                    )
                ] += 1
    return out


def grid_split(args, pop: np.ndarray, argv: list[str] | None) -> int:
    """``--grid SHARE``: the verdict-error grid's audited scenarios, its seeds and reruns,
    with every audit putting SHARE of its labels on the "wrong" verdicts, beside the grid's
    own table (the even split); written to ``--out`` when given."""
    import bench_verdict_grid as grid
    from bench_verdict_error import _audit_exact

    grid._audit_exact = partial(_audit_exact, wrong_share=args.grid)  # the grid's audits
    started, tally, rows = cpu_seconds(), Tally(), []
    todo = [
        (s, 200, 400, args.seed + 101 * i, pop)
        for i, s in enumerate(grid.scenarios(False))
        if s.source != "stated" and args.grid_audit in (0, s.source)
    ]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for (s, *_), rec in zip(todo, pool.imap(grid._run_packed, todo)):
            rows.append(tally.add(s, rec))
            print(rows[-1], flush=True)
    sizes = {f"audit {s.source}" for s, *_ in todo}
    even = [  # the grid table's rows (the boundary table's name a treatment, not reruns)
        r
        for r in grid.OUT.read_text(encoding="utf-8").splitlines()
        if r.count("|") == 12
        and r.split("|")[5].strip() in sizes
        and r.split("|")[6].strip().isdigit()
    ]
    counts = {"even (the grid's table)": _marks(even), f'{args.grid:g} on "wrong"': _marks(rows)}
    summary = "; ".join(
        f"{name}: {c['inside']} of {sum(c.values())} audited cells in [0.93, 0.97], outside "
        f"{c['noise']} within noise, {c['boundary']} boundary, "
        f"{c['discrete']} discreteness (`d`, classed at an even split), {c['beyond']} beyond "
        "noise (`!`)"
        for name, c in counts.items()
    )
    print(summary)
    if args.out != OUT:
        runs = f'the grid\'s audited scenarios and seeds, {args.grid:g} of each audit on "wrong"'
        grid.write_table(args.out, rows, summary + ".", [], _header(started, runs, argv, __file__))
    print(f"RESULT even_inside={_marks(even)['inside']} split_inside={tally.n['inside']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = bench_args(argv, __doc__, "2 scenarios, 8 reruns", "500", OUT)
    if args.grid:
        return grid_split(args, population(), argv)
    reruns = args.reruns or (8 if args.quick else 500)
    todo_cells = [D_CELLS[0], D_CELLS[10]] if args.quick else D_CELLS
    todo_cells = parse_cells(args.cells) if args.cells else todo_cells
    pop, started = population(), cpu_seconds()
    jobs = [(s, reruns, args.seed + 101 * i, pop) for i, s in enumerate(todo_cells)]
    found = run_cells(_run, todo_cells, jobs, args.jobs)
    lines, outside = table(found)
    print("\n".join(lines))
    widths = {
        d: np.mean([rec[:, i, 2:4].mean() for rec in found.values()]) for i, d in enumerate(DESIGNS)
    }
    summary = "; ".join(
        f"{NAMES[d]}: {outside[i, 0]} of {outside[i, 1]} cells outside [0.93, 0.97], "
        f"mean width {widths[d]:.2f} points"
        for i, d in enumerate(DESIGNS)
    )
    if not args.quick and (args.out != OUT or not args.cells):
        runs = (
            f"{reruns} reruns per scenario, the same question sets and audit seeds for each design"
        )
        write_generated(args.out, _header(started, runs, argv, __file__), summary, lines)
    print(summary)
    for d in ("two-stage", "third"):
        k = DESIGNS.index(d)
        ok = outside[k, 0] < outside[0, 0]
        print(f"goal {'met' if ok else 'NOT met'}: {NAMES[d]} leaves fewer cells outside than even")
    print(
        "RESULT "
        + " ".join(
            f"{d}_outside={outside[i, 0]}/{outside[i, 1]} {d}_width={widths[d]:.2f}"
            for i, d in enumerate(DESIGNS)
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
