"""The nonparametric (grid) difficulty prior, against independent derivations: the NPMLE
of a known two-point mixture from its exact count frequencies, and the posterior-expected
rerun variance by exact rational sums on a prior with three support points."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from gpassk_oc.core.uncertainty.grid_prior import (
    GRID,
    GridPrior,
    fit_grid,
    grid_posterior_variance_table,
)


def _gpass(c: int, n: int, k: int, m: int) -> Fraction:
    """G-Pass@k with ≥ m of k correct: the share of k-subsets passing, by counting."""
    hits = sum(math.comb(c, i) * math.comb(n - c, k - i) for i in range(m, k + 1))
    return Fraction(hits, math.comb(n, k))


def _pmf(j: int, n: int, p: Fraction) -> Fraction:
    return math.comb(n, j) * p**j * (1 - p) ** (n - j)


def test_em_recovers_a_two_point_mixture_from_its_exact_frequencies():
    """Counts weighted by their exact probabilities under 0.3·δ(p₁) + 0.7·δ(p₂) (n = 12,
    identifiable): the true mixture maximises this likelihood (Gibbs' inequality), so the
    fit's count distribution must match the true one, its mass sit near p₁ and p₂, and
    the NPMLE's optimality condition hold: the directional derivative
    Σ_c P(c) P(c | p) / P_fit(c) ≤ 1 at every grid point (Lindsay 1983). The fit stops
    short of the exact optimum (a flat likelihood), hence the tolerances."""
    n, i1, i2 = 12, 60, 150
    p1, p2 = GRID[i1], GRID[i2]
    c = np.arange(n + 1)
    binom = np.array([[math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in c] for p in GRID])
    true = 0.3 * binom[i1] + 0.7 * binom[i2]
    prior = fit_grid(n, c, "exact frequencies", weight=1000 * true)
    fitted = prior.weight @ binom
    assert float(true @ np.log(true / fitted)) < 1e-3  # KL(true ‖ fit): the likelihood gap
    assert np.abs(fitted - true).max() < 1e-2
    near1 = np.abs(GRID - p1) < 0.08
    near2 = np.abs(GRID - p2) < 0.08
    assert prior.weight[near1].sum() == pytest.approx(0.3, abs=0.03)
    assert prior.weight[near2].sum() == pytest.approx(0.7, abs=0.03)
    derivative = binom @ (true / fitted)
    assert derivative.max() < 1.01


def test_posterior_expected_variance_by_exact_sums():
    """A prior on three grid points (0, an interior point, 1): E[Var(f(C') | p) | c] by
    exact rational sums over the posterior P(p_g | c) ∝ π_g p_g^c (1 − p_g)^(n − c) and
    Var(f(C') | p_g) from the binomial pmf, f by counting subsets."""
    n, k, m = 8, 4, 2  # G-Pass@4_0.5 at n = 8
    idx = [0, 70, len(GRID) - 1]
    weight = np.zeros(len(GRID))
    weight[idx] = [0.25, 0.5, 0.25]
    prior = GridPrior(weight, "three points")
    got = grid_posterior_variance_table(["G-Pass@4_0.5", "G-Pass@4_1.0"], n, prior)
    for col, mk in enumerate((m, k)):
        f = [_gpass(j, n, k, mk) for j in range(n + 1)]
        points = [(Fraction(float(GRID[i])), Fraction(float(weight[i]))) for i in idx]
        var = []
        for p, _ in points:
            mean = sum(_pmf(j, n, p) * f[j] for j in range(n + 1))
            var.append(sum(_pmf(j, n, p) * (f[j] - mean) ** 2 for j in range(n + 1)))
        for c in range(n + 1):
            like = [w * p**c * (1 - p) ** (n - c) for p, w in points]
            expected = sum(x * v for x, v in zip(like, var)) / sum(like)
            assert got[c, col] == pytest.approx(float(expected), rel=1e-9, abs=1e-15), (col, c)
    # only the interior point moves a rerun; it is less likely at c = 0 or n, not ruled
    # out, so every count keeps some variance (the point of the fallback)
    assert (got[:, 0] > 0).all()


def test_a_bimodal_table_is_not_given_mass_at_one_half():
    """The demo's steady model (p ≈ 0.065 or 0.935, n = 16): G-Pass@8_0.5's variance lives
    near p = ½. The summed posterior variance over 32 questions stays within 4× the
    closed-form truth (a fitted Beta's was 57×, bench/bench_small_tables.py)."""
    n, k, m = 16, 8, 4
    p = np.where(np.arange(32) % 8 < 3, 0.935, 0.065)
    c = np.random.default_rng(1).binomial(n, p)
    values, counts = np.unique(c, return_counts=True)
    prior = fit_grid(n, values, "steady table", weight=counts)
    got = grid_posterior_variance_table(["G-Pass@8_0.5"], n, prior)[c, 0].sum()
    f = np.array([float(_gpass(j, n, k, m)) for j in range(n + 1)])
    pmf = np.array([[math.comb(n, j) * r**j * (1 - r) ** (n - j) for j in range(n + 1)] for r in p])
    truth = float((pmf @ f**2 - (pmf @ f) ** 2).sum())
    assert truth / 4 < got < 4 * truth


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 2 questions"):
        fit_grid(8, [3], "one question")
    with pytest.raises(ValueError, match="n >= 2"):
        fit_grid(1, [0, 1], "n = 1")
