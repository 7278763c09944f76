"""The fallback variance of a metric flat at both ends comes from the grid prior (issue 35,
item 4): for bimodal difficulties (the demo's steady row, p ≈ 0.07 or 0.93) the fitted
Beta keeps posterior mass near p = ½, where G-Pass@k_0.5 has all its variance, and its
interval was several times too wide (coverage 1.000 up to Q = 100); the grid prior's
posterior gives a summed variance near the truth. G-Pass@k_1.0 keeps the Beta's.

Expected values are derived here, independently of the package: the metric per count by
counting k-subsets (exact fractions), a rerun's true variance by exact binomial sums, the
grid posterior by Bayes' rule over the fitted grid prior's points."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from report_support import LegendReport, quick_table
from scipy import stats as sps

from gpassk_oc.core.uncertainty import metric_intervals as stats
from gpassk_oc.core.uncertainty.atoms import Fallback, atoms_of
from gpassk_oc.core.uncertainty.grid_prior import GRID

#: the demo's steady row at T = 0.5 (gpassk_oc.demo.simulation): 3 of every 8 questions
#: solved with p = 0.935, 5 with p = 0.065
STEADY = (0.935, 0.065)


def _gpass(c: int, n: int, k: int, m: int) -> Fraction:
    """G-Pass@k with at least m of k right, from c of n: k-subsets with ≥ m right."""
    good = sum(math.comb(c, j) * math.comb(n - c, k - j) for j in range(m, k + 1))
    return Fraction(good, math.comb(n, k))


def _true_variance(p: float, n: int, k: int, m: int) -> float:
    f = np.array([float(_gpass(c, n, k, m)) for c in range(n + 1)])
    w = np.array([math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)])
    return float(w @ f**2 - (w @ f) ** 2)


def _steady_table(n: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """A typical draw, made deterministic: per rate, the counts at evenly spaced
    binomial quantiles (3/8 of the questions at 0.935, 5/8 at 0.065)."""
    hi, lo = 3 * q // 8, q - 3 * q // 8
    counts, rates = [], []
    for p, size in zip(STEADY, (hi, lo)):
        counts += sps.binom.ppf((np.arange(size) + 0.5) / size, n, p).astype(int).tolist()
        rates += [p] * size
    return np.array(counts), np.array(rates)


@pytest.mark.parametrize(("n", "k", "q"), [(8, 4, 100), (16, 8, 100), (48, 8, 40)])
def test_steady_half_threshold_variance_is_near_the_truth(n, k, q):
    """G-Pass@k_0.5 of the steady row: the summed rerun variance behind the interval
    (SE² Q²) lies within [0.5, 2] of the true Σ Var f(C) (the old Beta fallback gave
    3–50× here); the interval is plain 'posterior', not 'wide'."""
    counts, rates = _steady_table(n, q)
    key = f"G-Pass@{k}_0.5"
    true = sum(_true_variance(p, n, k, k // 2) for p in rates)
    est = stats.summarize_many([(n, counts)], [key], n_boot=0)[0][key]
    ratio = (est.sampling_se * q) ** 2 / true
    assert 0.5 <= ratio <= 2.0, ratio
    assert est.rerun in ("posterior", "unreliable")


def test_flat_end_question_takes_the_grid_posterior_and_tau_1_the_beta():
    """Per question: a G-Pass@8_0.5 count at a flat end (V(c) = 0) gets Σ_g P(p_g | c)
    Var(f(C') | p_g) over the fitted grid prior's points (Bayes' rule here, binomial
    sums); G-Pass@8_1.0 keeps the Beta's posterior variance (as with ends='prior')."""
    n, k = 48, 8
    counts, _ = _steady_table(n, 40)
    atoms = atoms_of(n, counts)
    grid = atoms.prior("grid")
    specs = [stats.parse_metric(m) for m in ("G-Pass@8_0.5", "G-Pass@8_1.0")]
    used = atoms.variances(specs, atoms.prior())
    f = np.array([float(_gpass(c, n, k, 4)) for c in range(n + 1)])
    pmf = sps.binom.pmf(np.arange(n + 1)[None, :], n, GRID[:, None])
    var_at = pmf @ f**2 - (pmf @ f) ** 2
    checked = 0
    for i, c in enumerate(atoms.c.tolist()):
        # flat ends: no 8-subset has 4 right (c < 4) or every one has (n − c < 5)
        if 4 <= c < n - 4:
            continue
        post = grid.weight * sps.binom.pmf(c, n, GRID)
        expected = float(post @ var_at / post.sum())
        assert used[i, 0] == pytest.approx(expected, rel=1e-6, abs=1e-15), c
        checked += 1
    assert checked >= 5
    old = atoms.variances(specs, atoms.prior(), Fallback(ends="prior"))
    np.testing.assert_allclose(used[:, 1], old[:, 1], rtol=1e-9)


def test_legends_name_the_grid_prior_for_these_metrics():
    from gpassk_oc.report.data.tables import legend

    note = " ".join(" ".join([t, *items]) for t, items in legend(LegendReport(n_boot=0)))  # type: ignore[arg-type]
    assert "shape-free grid fit for G-Pass@k_τ with 2 ≤ ⌈τk⌉ < k" in note


def test_bench_quick_runs_and_writes_its_table(tmp_path):
    table = quick_table("bench_flat_ends.py", tmp_path, "RESULT cells=2 runs=20 off=0 ")
    assert "| steady T=0.5 | G-Pass@4_0.5 | 8 | 100 |" in table
