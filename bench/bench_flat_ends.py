"""Why G-Pass@k_0.5 over-covered: the summed rerun variance behind the interval against the
truth, with the fitted Beta's posterior variances and with the grid prior's (issue 35).

    PYTHONPATH=. .venv/bin/python bench/bench_flat_ends.py          # 100 reruns per cell
    PYTHONPATH=. .venv/bin/python bench/bench_flat_ends.py --quick  # 2 cells, seconds

A cell is (scenario, metric, n, Q), the scenarios of bench_small_tables.py. One rerun
draws counts ``c ~ Binomial(n, p_q)``; its truth is ``Σ_q Var(f(C) | p_q)`` (exact binomial
sums, f the metric per count), the variance of Q × the table's value over reruns. Per
rerun the bench takes the ratio to it of ``Σ_q V_q``, the variances the report's rerun
interval is built from (:meth:`gpassk_oc.core.uncertainty.atoms.Atoms.variances`, after
``cell_variances``) under three rules: the unbiased V(c) alone (release 0.3), the Beta's
posterior variances where V says nothing (``Fallback(ends="prior")``, the rule before) and the
grid prior's for metrics flat at both ends (``Fallback()``, the report's rule). It prints
the median ratio over the reruns and its 10% and 90% quantiles; a ratio r makes a 95%
normal interval cover about ``P(|Z| < 1.96 √r)`` (0.993 at r = 2, 0.9998 at r = 4).

Goals (``goal met`` / ``NOT met``, ``RESULT …`` last): the report's rule has a median ratio
within [0.5, 2] in every cell whose truth is not below 1e-4 (a rerun SE of a table of Q
questions below 1/Q points: invisible at the report's one decimal). With ``--table``
the full run writes docs/generated/bench-flat-ends.md.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
from bench_small_tables import SCENARIOS, emit, table_parser
from provenance import header

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.atoms import Fallback, atoms_of
from gpassk_oc.core.uncertainty.known_rates import metric_per_c

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "docs" / "generated" / "bench-flat-ends.md"
RULES = {"V(c) alone": None, "Beta": Fallback(ends="prior"), "grid (report)": Fallback()}
#: (scenario, metric, n, Q): the cells bench_small_tables.py found at 1.000
CELLS = [
    ("steady T=0.5", "G-Pass@4_0.5", 8, 100),
    ("steady T=0.5", "G-Pass@4_0.5", 12, 32),
    ("steady T=0.5", "G-Pass@8_0.5", 16, 100),
    ("steady T=0.5", "G-Pass@8_0.5", 48, 32),
    ("steady T=1", "G-Pass@4_0.5", 12, 100),
    ("steady T=1", "G-Pass@8_0.5", 48, 8),
    ("steady T=1", "G-Pass@16_0.5", 48, 100),
    ("Beta(0.6,0.6)", "G-Pass@8_0.5", 16, 32),
    ("Beta(0.6,0.6)", "G-Pass@16_0.5", 48, 32),
]
#: truths below this (Σ Var) are invisible at one decimal: not judged
TINY = 1e-4


def true_variance(metric: str, n: int, p: np.ndarray) -> float:
    """Σ_q Var(f(C) | p_q), C ~ Binomial(n, p_q): exact sums over c = 0..n."""
    f = metric_per_c(stats.parse_metric(metric), n)
    c = np.arange(n + 1)
    comb = np.array([math.comb(n, x) for x in c], dtype=float)
    pmf = comb * p[:, None] ** c * (1 - p[:, None]) ** (n - c)
    return float((pmf @ f**2 - (pmf @ f) ** 2).sum())


def ratios(scenario: str, metric: str, n: int, q: int, runs: int, seed: int) -> dict:
    """Per rule, the ratio Σ V / truth in each rerun; and the mean truth."""
    rng = np.random.default_rng(seed)
    spec = stats.parse_metric(metric)
    out: dict = {name: [] for name in RULES}
    truths = []
    for _ in range(runs):
        p = SCENARIOS[scenario](rng, q)
        atoms = atoms_of(n, rng.binomial(n, p))
        truth = true_variance(metric, n, p)
        truths.append(truth)
        for name, rule in RULES.items():
            prior = None if rule is None else atoms.prior(rule.prior)
            kw = {} if rule is None else {"fallback": rule}
            v = atoms.cell_variances(atoms.variances([spec], prior, **kw))[:, 0]
            out[name].append(float(atoms.weight @ np.nan_to_num(v)) / truth)
    return {"truth": float(np.mean(truths)), **{k: np.array(v) for k, v in out.items()}}


def _text(r: np.ndarray) -> str:
    low, mid, high = np.quantile(r, [0.1, 0.5, 0.9])
    return f"{mid:.2f} ({low:.2f}–{high:.2f})"


def main() -> None:
    args = table_parser(__doc__, TABLE, "2 cells, 20 reruns", 41).parse_args()
    runs = 20 if args.quick else min(args.runs, 100)
    cells = CELLS[:1] + CELLS[-2:-1] if args.quick else CELLS
    start = time.perf_counter()
    lines = [
        f"Summed rerun variance behind the interval ÷ the true one, median (10%–90%) over "
        f"{runs} reruns per cell, under each rule; the truth is Σ Var(f(C) | p), its mean "
        "over the reruns in the last column.",
        "",
        "| scenario | metric | n | Q | " + " | ".join(RULES) + " | truth |",
        "|---|---|---|---|" + "---|" * (len(RULES) + 1),
    ]
    off = []
    for i, (s, m, n, q) in enumerate(cells):
        r = ratios(s, m, n, q, runs, args.seed + i)
        texts = " | ".join(_text(r[name]) for name in RULES)
        lines.append(f"| {s} | {m} | {n} | {q} | {texts} | {r['truth']:.1e} |")
        mid = float(np.median(r["grid (report)"]))
        if r["truth"] >= TINY and not 0.5 <= mid <= 2.0:
            off.append(f"{s} {m} n={n} Q={q}: {mid:.2f}")
    ok = not off
    verdicts = [
        f"goal {'met' if ok else 'NOT met'}: the report's rule has a median ratio in "
        f"[0.5, 2] wherever the truth is >= {TINY:g} ({len(off)} cells off"
        + (": " + "; ".join(off) if off else "")
        + ")",
        "goals met" if ok else "goals NOT met",
    ]
    result = f"RESULT cells={len(cells)} runs={runs} off={len(off)}"
    lines += ["", "```text", *verdicts, result, "```"]
    emit(header(__file__), lines, result, args.out if args.table else None, start)


if __name__ == "__main__":
    main()
