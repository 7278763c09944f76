"""Grid priors fitted many at a time (:func:`fit_grid_many`, what a report does through
:func:`.atoms.priors_of`): each table's fit must be a maximum of its own likelihood, by
the NPMLE's optimality condition (Lindsay 1983), whatever other tables share its batch,
including tables at other n and tables whose counts sit only at 0 or only at n (atoms of
the batch they do not hold, whose likelihood under their weights underflows)."""

from __future__ import annotations

import math

import numpy as np

from gpassk_oc.core.uncertainty.atoms import atoms_of, priors_of
from gpassk_oc.core.uncertainty.grid_prior import GRID, fit_grid_many


def _binomial_rows(n: int) -> np.ndarray:
    """G × (n+1): P(c | n, p_g), from math.comb (independent of the fit's log-space)."""
    return np.array(
        [[math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)] for p in GRID]
    )


def _tables() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    out = []
    for n, q, a in ((16, 32, 0.4), (48, 280, 0.6), (8, 8, 1.0), (48, 40, 0.3), (16, 100, 2.0)):
        c = rng.binomial(n, rng.beta(a, a, q))
        out.append((np.full(q, n), c, np.ones(q)))
    out.append((np.full(12, 16), np.zeros(12, dtype=int), np.ones(12)))  # never right
    out.append((np.full(5, 48), np.full(5, 48), np.ones(5)))  # always right
    return out


def test_every_table_of_a_batch_meets_the_npmle_optimality_condition():
    """At the NPMLE, D(p) = Σ_c P̂(c) P(c | p) / P_fit(c) ≤ 1 at every p, with equality on
    the support; the fit stops short of the exact optimum (a flat likelihood), hence 1.01.
    And its log-likelihood is within 1e-3 per question of the best two-point prior found
    by brute force over pairs of grid points (a lower bound on the maximum)."""
    tables = _tables()
    for (n_q, c, w), prior in zip(tables, fit_grid_many(tables, "batch")):
        n = int(n_q[0])
        assert np.isfinite(prior.weight).all() and abs(prior.weight.sum() - 1) < 1e-9
        share = np.bincount(c, weights=w, minlength=n + 1) / w.sum()
        rows = _binomial_rows(n)
        fitted = prior.weight @ rows
        held = share > 0
        derivative = rows[:, held] @ (share[held] / fitted[held])
        assert derivative.max() < 1.01, (n, len(c))
        loglik = share[held] @ np.log(fitted[held])
        coarse = rows[::10]
        best = -np.inf
        for i in range(len(coarse)):
            for mix in np.linspace(0, 1, 11):
                two = mix * coarse[i][None, :] + (1 - mix) * coarse
                with np.errstate(divide="ignore"):
                    best = max(best, (np.log(two[:, held]) @ share[held]).max())
        assert loglik >= best - 1e-3, (n, len(c), loglik, best)


def test_a_table_fits_the_same_alone_and_in_a_batch():
    """A table's prior must not depend on which other tables a report fits beside it:
    the same expected count distribution alone and in the batch (rounding aside)."""
    tables = _tables()
    together = fit_grid_many(tables, "batch")
    for i, table in enumerate(tables):
        (alone,) = fit_grid_many([table], "alone")
        rows = _binomial_rows(int(table[0][0]))
        assert np.abs((alone.weight - together[i].weight) @ rows).max() < 1e-6, i


def test_priors_of_fits_only_tables_that_need_a_fallback_and_caches_them():
    """G-Pass@16_1.0 at n = 16 (n < 2k) needs the fitted prior; pass@1 at n = 16 (k = 1,
    the textbook variance) never does. A table's prior from the batch is the one
    Atoms.prior then returns (the same object: no second fit)."""
    rng = np.random.default_rng(3)
    a, b = (atoms_of(16, rng.binomial(16, rng.beta(0.5, 0.5, 40))) for _ in range(2))
    assert priors_of([a, b], ["pass@1"]) == [None, None]
    priors = priors_of([a, b], ["G-Pass@16_1.0"], "grid")
    assert priors[0] is a.prior("grid") and priors[1] is b.prior("grid")
    assert priors[0] is not None and priors[0] is not priors[1]
