"""Does the verdict-error correction's model fit the counts? (pure core)

:mod:`.corrected_estimates` turns each question's observed counts into ``h = E[f(t) | c]``
through the posterior over its true count t, under a Beta prior for the question's success
rate p fitted through the channel, with each sample's verdict erring on its own. Where the
difficulties are not Beta-shaped (a strong model's: most rates in [0.95, 1), the rest
spread; a steady one's: two clusters) the Beta's U shape piles the posterior on t = n, and
at fp 2%, fn 8%, 280 questions, n = 48 the corrected G-Pass@16_1.0 reads 6–9 points high;
clustered errors (one way of writing the gold missed in all its samples) mislead it too
(bench/bench_verdict_shapes.py, bench/bench_verdict_clusters.py).

The check: the NPMLE of p's distribution on :data:`.grid_prior.GRID`, fitted to the same
counts through the same channel, assumes no shape. A question's likelihood at grid point
p_g is ``Σ_t w(t) p_g^t (1 − p_g)^(n − t)`` with w the channel weights of
:func:`.verdict_channel.likelihood_weights`; the Beta's is the same sum against
``B(a + t, b + n − t) / B(a, b)``, so the two log-likelihoods compare directly, and twice
their difference is large where the counts reject the Beta model.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from gpassk_oc.core.uncertainty.difficulty_model import Difficulty
from gpassk_oc.core.uncertainty.grid_prior import GRID, _squarem
from gpassk_oc.core.uncertainty.verdict_channel import Question, draw_log_weights

__all__ = ["model_check"]

Rates = Sequence[tuple[float, float]]
#: (total n, the atoms' indices, their channel weights: rows × (n+1))
Group = tuple[int, np.ndarray, np.ndarray]


@lru_cache(maxsize=64)
def _powers(n: int) -> np.ndarray:
    """(n+1) × G: ``p_g^t (1 − p_g)^(n − t)``, read-only."""
    from scipy.special import xlog1py, xlogy

    t = np.arange(n + 1)[:, None]
    out = np.exp(xlogy(t, GRID[None, :]) + xlog1py(n - t, -GRID[None, :]))
    out.setflags(write=False)
    return out


def _groups(atoms: Sequence[Question], rates: Rates) -> list[Group]:
    """Per group of atoms with the same samples per channel: their channel weights at
    *rates* (rows × (n+1)), each row scaled to max 1 (a constant per atom, which cancels
    in every comparison of two priors on the same atom)."""
    by_sizes: dict[tuple[int, ...], list[int]] = {}
    for i, q in enumerate(atoms):
        by_sizes.setdefault(tuple(n for n, _ in q), []).append(i)
    point = np.asarray(rates, dtype=float)[None]
    out = []
    for sizes, rows in by_sizes.items():
        log_w = draw_log_weights([atoms[i] for i in rows], point)[0]
        out.append((sum(sizes), np.array(rows), np.exp(log_w - log_w.max(axis=1, keepdims=True))))
    return out


def _likelihood(groups: Sequence[Group], atoms: int) -> np.ndarray:
    """A × G likelihood of each atom at each grid point."""
    like = np.empty((atoms, len(GRID)))
    for n, rows, w in groups:
        like[rows] = w @ _powers(n)
    return like


def _likelihoods(
    atoms: Sequence[Question], rates: Rates, beta: Difficulty
) -> tuple[np.ndarray, np.ndarray]:
    """Each atom's likelihood at each grid point (A × G) and under the Beta (A), with the
    same channel weights (so with the same constant per atom)."""
    from scipy.special import betaln

    groups = _groups(atoms, rates)
    like = _likelihood(groups, len(atoms))
    beta_like = np.empty(len(atoms))
    for n, rows, w in groups:
        t = np.arange(n + 1)
        beta_like[rows] = w @ np.exp(betaln(beta.a + t, beta.b + n - t) - betaln(beta.a, beta.b))
    return like, beta_like


def _statistics(like: np.ndarray, beta_like: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """2 Δ log L of each table (a row of *counts*: questions per atom), all fitted in one
    batched EM."""
    scale = like.max(axis=1, keepdims=True)
    pis = _squarem(like / scale, counts / counts.sum(axis=1, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.log(pis @ (like / scale).T) + np.log(scale.T) - np.log(beta_like)[None, :]
    return 2 * (counts * np.where(counts > 0, gain, 0.0)).sum(axis=1)


def _simulated_tables(
    atoms: Sequence[Question],
    weight: np.ndarray,
    rates: Rates,
    beta: Difficulty,
    draws: int,
    rng: np.random.Generator,
) -> tuple[list[Question], np.ndarray]:
    """*draws* tables of the same questions' sizes, drawn from the fitted model (p from the
    Beta, each sample through its channel): their distinct atoms and the questions per
    atom of each table (draws × atoms)."""
    sizes = np.repeat(np.array([[n for n, _ in q] for q in atoms]), weight, axis=0)  # Q × S
    p = rng.beta(beta.a, beta.b, (draws, len(sizes)))
    cols = []
    for s, (fp, fn) in enumerate(rates):
        t = rng.binomial(sizes[None, :, s], p)
        cols.append(rng.binomial(t, 1 - fn) + rng.binomial(sizes[None, :, s] - t, fp))
    keys = np.stack(
        [np.broadcast_to(sizes[None, :, s], p.shape) for s in range(len(rates))] + cols, axis=2
    )
    flat = keys.reshape(-1, keys.shape[2])
    distinct, inverse = np.unique(flat, axis=0, return_inverse=True)
    inverse = inverse.reshape(draws, -1)
    counts = np.stack([np.bincount(row, minlength=len(distinct)) for row in inverse])
    s_count = len(rates)
    table = [tuple((int(r[s]), int(r[s_count + s])) for s in range(s_count)) for r in distinct]
    return table, counts.astype(float)


def model_check(
    atoms: Sequence[Question],
    weight: np.ndarray,
    rates: Rates,
    beta: Difficulty,
    draws: int = 200,
    seed: int = 0,
) -> tuple[float, float]:
    """``(2 Δ log L, p)``: twice the log-likelihood the grid prior gains over the fitted
    Beta on these counts through the channel, and how often tables drawn from the fitted
    model itself gain at least as much (a parametric bootstrap; the Beta is not refitted to
    each, which makes p conservative). A few to a few tens where the model holds: the
    grid's many weights fit some noise, more so with more questions and samples."""
    like, beta_like = _likelihoods(atoms, rates, beta)
    observed = float(_statistics(like, beta_like, np.asarray(weight, float)[None, :])[0])
    table, counts = _simulated_tables(
        atoms, weight, rates, beta, draws, np.random.default_rng(seed)
    )
    sim_like, sim_beta = _likelihoods(table, rates, beta)
    simulated = _statistics(sim_like, sim_beta, counts)
    return observed, float((1 + np.sum(simulated >= observed)) / (1 + draws))
