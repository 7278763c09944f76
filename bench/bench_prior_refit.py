"""The difficulty prior's refit per rate draw: one linear Newton step (the report), two
Newton steps, and a full refit, compared on the same question sets and audits.

    nice -n 10 .venv/bin/python bench/bench_prior_refit.py --jobs 2   # into the docs
    .venv/bin/python bench/bench_prior_refit.py --quick               # seconds

With rates from an audit, the corrected estimate (:func:`gpassk_oc.core.uncertainty.
corrected_estimates.correct`) moves each rate draw's values by one Newton step of the
prior's refit, linearised (:meth:`~gpassk_oc.core.uncertainty.prior_influence.
PriorInfluence.refit_shift`). Here each draw's values are instead computed exactly at a
prior refitted under that draw: by two Newton steps in (a, b) from the fitted prior (the
observed information under the draw; a step is halved while it would more than halve a
or b), or by the full maximum-likelihood fit (:func:`~gpassk_oc.core.uncertainty.
verdict_channel.fit_prior`, started at the fitted prior; where its optimiser stops at its
iteration cap, twelve Newton steps). Everything else is the
report's. Per scenario: each metric's mean rerun and benchmark interval width relative to
the full refit's, and the CPU seconds of one corrected estimate per method. The scenarios
are the grid's cells whose intervals lean most on the rates (audits of 100 verdicts at
280 questions and the fn-heavy 50-question cell). Writes ``docs/generated/prior-refit.md``
(``--out``) unless ``--quick``; prints ``RESULT …`` last.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_audit_allocation import bench_args, run_cells, write_generated  # noqa: E402
from bench_verdict_error import LEVEL, PRIOR, _audit_exact  # noqa: E402
from bench_verdict_grid import N_BOOT, _header, audited_rates  # noqa: E402
from provenance import cpu_seconds  # noqa: E402
from verdict_grid_cells import KEYS, Scenario, parse_cells  # noqa: E402

from gpassk_oc.core.uncertainty import corrected_estimates as ce  # noqa: E402
from gpassk_oc.core.uncertainty.difficulty_model import Difficulty  # noqa: E402
from gpassk_oc.core.uncertainty.prior_influence import atom_terms  # noqa: E402
from gpassk_oc.core.uncertainty.verdict_channel import draw_posteriors, fit_prior  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "generated" / "prior-refit.md"
METHODS = ("one step", "two steps", "full")
NAMES = {
    "one step": "one linear Newton step (the report)",
    "two steps": "two Newton steps, exact",
    "full": "full refit",
}
CELLS = [
    Scenario(0.0, 0.08, 280, 48, 100),
    Scenario(0.005, 0.03, 280, 48, 100),
    Scenario(0.02, 0.12, 50, 16, 100),
]


def _newton(atoms, weight, draw, prior: Difficulty, f: np.ndarray) -> Difficulty:
    """One Newton step of the prior's likelihood under the rates *draw* (S × 2)."""
    posts = draw_posteriors(atoms, draw[None], prior)[0]
    terms = atom_terms(posts, f, prior)
    info = -np.einsum("a,aij->ij", weight.astype(float), terms.hessian)
    step = np.linalg.solve(info, weight @ terms.score)
    while prior.a + step[0] < prior.a / 2 or prior.b + step[1] < prior.b / 2:
        step = step / 2
    return Difficulty(prior.a + step[0], prior.b + step[1], "step")


def _refit_tables(method: str):
    """A stand-in for ``_draw_tables``: each draw's values at the prior refitted under it."""

    def tables(atoms, weight, rate_draws, prior, specs, influence):
        (n,) = {ce._total_n(q) for q in atoms}
        f = ce._moment_tables(n, prior, specs)[0]
        out = np.empty((len(rate_draws), len(atoms), len(specs)))
        for r, draw in enumerate(rate_draws):
            refit, steps = prior, 2
            if method == "full":
                try:
                    refit = fit_prior(atoms, weight, [tuple(x) for x in draw], start=prior)
                    steps = 0
                except ValueError:  # the optimiser's iteration cap: Newton to convergence
                    steps = 12
            for _ in range(steps):
                refit = _newton(atoms, weight, draw, refit, f)
            out[r] = draw_posteriors(atoms, draw[None], refit)[0] @ f
        return out

    return tables


@contextmanager
def _method(method: str):
    saved = ce._draw_tables
    if method != "one step":
        ce._draw_tables = _refit_tables(method)
    try:
        yield
    finally:
        ce._draw_tables = saved


def one_rerun(s: Scenario, seed: int) -> np.ndarray:
    """(methods × 3 × M): rerun width, benchmark width (points), CPU seconds."""
    rng = np.random.default_rng(seed)
    p = rng.beta(PRIOR.a, PRIOR.b, size=s.q)
    t = rng.binomial(s.n, p)
    kept = rng.binomial(t, 1 - s.fn)
    c = kept + rng.binomial(s.n - t, s.fp)
    audit = _audit_exact(rng, t, kept, c, int(s.source), s.n)
    rates, draws = audited_rates(audit, seed)
    questions = [((s.n, int(x)),) for x in c]
    out = np.empty((len(METHODS), 3, len(KEYS)))
    for i, method in enumerate(METHODS):
        with _method(method):
            start = time.process_time()
            got = ce.correct(
                questions, rates, KEYS, rate_draws=draws, n_boot=N_BOOT, seed=seed, level=LEVEL
            )
            out[i, 2] = time.process_time() - start
        for j, key in enumerate(KEYS):
            e = got[key]
            out[i, :2, j] = 100 * (e.rerun_high - e.rerun_low), 100 * (e.ci_high - e.ci_low)
    return out


def _run(args: tuple) -> np.ndarray:
    s, reruns, seed = args
    return np.array([one_rerun(s, seed * 1000 + r) for r in range(reruns)])


def table(found: dict) -> list[str]:
    cols = " | ".join(f"{k} rerun / benchmark" for k in KEYS)
    lines = [f"| fp | fn | Q | n | rates | prior per rate draw | CPU s | {cols} |"]
    lines.append("|---|---|---|---|---|---|---|" + "---|" * len(KEYS))
    for s, rec in found.items():
        full = rec[:, METHODS.index("full"), :2].mean(axis=0)
        for i, method in enumerate(METHODS):
            ratio = rec[:, i, :2].mean(axis=0) / full
            cells = " | ".join(f"{ratio[0, j]:.3f} / {ratio[1, j]:.3f}" for j in range(len(KEYS)))
            cpu = rec[:, i, 2, 0].mean()
            lines.append(f"| {s.label()} | {NAMES[method]} | {cpu:.3f} | {cells} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = bench_args(argv, __doc__, "1 scenario, 2 reruns", "100", OUT)
    reruns = args.reruns or (2 if args.quick else 100)
    cells = CELLS[-1:] if args.quick else CELLS
    cells = parse_cells(args.cells) if args.cells else cells
    started = cpu_seconds()
    jobs = [(s, reruns, args.seed + 101 * i) for i, s in enumerate(cells)]
    found = run_cells(_run, cells, jobs, args.jobs)
    lines = table(found)
    print("\n".join(lines))
    rec = np.concatenate(list(found.values()))
    widths = rec[:, :, :2].mean(axis=(0, 2, 3))
    cpu = rec[:, :, 2, 0].mean(axis=0)
    summary = (
        f"Mean interval width relative to the full refit: one step {widths[0] / widths[2]:.3f}, "
        f"two steps {widths[1] / widths[2]:.3f}; CPU per corrected estimate relative to one "
        f"step: two steps {cpu[1] / cpu[0]:.1f}×, full refit {cpu[2] / cpu[0]:.1f}×"
    )
    if not args.quick and (args.out != OUT or not args.cells):
        runs = f"{reruns} reruns per scenario, the same question sets and audits for each method"
        write_generated(args.out, _header(started, runs, argv, __file__), summary, lines)
    print(summary)
    print(
        f"RESULT one_step_width={widths[0] / widths[2]:.3f} two_steps_width={widths[1] / widths[2]:.3f} "
        f"two_steps_cpu={cpu[1] / cpu[0]:.1f}x full_cpu={cpu[2] / cpu[0]:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
