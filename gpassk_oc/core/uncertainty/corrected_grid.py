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

import math
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


def _statistics(
    like: np.ndarray, beta_like: np.ndarray, counts: np.ndarray, threshold: float | None = None
) -> np.ndarray:
    """2 Δ log L of each table (a row of *counts*: questions per atom), all fitted in one
    batched EM. With *threshold*, a table's fit stops once the side of it its value ends on
    is known: at or above it (the fit only climbs), or below it even at the fit's maximum
    (``ℓ* − ℓ(π) ≤ log max_g Σ_a share_a L_ag / f_a(π)``, Jensen's inequality). Each value
    then ends on the side it would with the fit run out, at a fraction of the steps."""
    scale = like.max(axis=1, keepdims=True)
    unit = like / scale
    total = counts.sum(axis=1)
    share = counts / total[:, None]
    settled = None
    if threshold is not None:
        with np.errstate(divide="ignore"):
            offset = np.log(scale.T) - np.log(beta_like)[None, :]
        offset = 2 * (counts * np.where(counts > 0, offset, 0.0)).sum(axis=1)

        def settled(rows: np.ndarray, pi: np.ndarray, loglik: np.ndarray) -> np.ndarray:
            low = 2 * total[rows] * loglik + offset[rows]
            mix = pi @ unit.T
            ratio = np.divide(share[rows], mix, out=np.zeros_like(mix), where=share[rows] > 0)
            high = low + 2 * total[rows] * np.log((ratio @ unit).max(axis=1))
            return (low >= threshold) | (high < threshold)

    pis = _squarem(unit, share, settled)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.log(pis @ unit.T) + np.log(scale.T) - np.log(beta_like)[None, :]
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
    counts = []
    for s, (fp, fn) in enumerate(rates):
        t = rng.binomial(sizes[None, :, s], p)
        counts.append(rng.binomial(t, 1 - fn) + rng.binomial(sizes[None, :, s] - t, fp))
    # a question's atom as one integer: its sizes' group, then each channel's count in
    # mixed radix; the distinct atoms are then a 1-D unique, ~10× faster than a row-wise
    # unique of draws × Q rows (which stays for radices too large for int64)
    shapes, group = np.unique(sizes, axis=0, return_inverse=True)
    radix = [int(sizes[:, s].max()) + 1 for s in range(len(rates))]
    if len(shapes) * math.prod(radix) >= 2**62:
        return _tables_by_rows(sizes, counts)
    code = np.broadcast_to(group.reshape(-1), p.shape).astype(np.int64)
    for c, r in zip(counts, radix):
        code = code * r + c
    distinct, inverse = np.unique(code, return_inverse=True)
    inverse = inverse.reshape(draws, -1) + len(distinct) * np.arange(draws)[:, None]
    per_table = np.bincount(inverse.ravel(), minlength=draws * len(distinct))
    table = []
    for value in distinct.tolist():
        got = []
        for r in reversed(radix):
            value, c = divmod(value, r)
            got.append(c)
        table.append(tuple(zip(shapes[value].tolist(), reversed(got))))
    return table, per_table.reshape(draws, -1).astype(float)


def _tables_by_rows(
    sizes: np.ndarray, counts: list[np.ndarray]
) -> tuple[list[Question], np.ndarray]:
    """:func:`_simulated_tables`'s atoms and counts by a row-wise unique (any radix)."""
    draws = counts[0].shape[0]
    keys = np.stack(
        [np.broadcast_to(sizes[None, :, s], counts[s].shape) for s in range(len(counts))] + counts,
        axis=2,
    )
    distinct, inverse = np.unique(keys.reshape(-1, keys.shape[2]), axis=0, return_inverse=True)
    inverse = inverse.reshape(draws, -1)
    per_table = np.stack([np.bincount(row, minlength=len(distinct)) for row in inverse])
    s_count = len(counts)
    table = [tuple((int(r[s]), int(r[s_count + s])) for s in range(s_count)) for r in distinct]
    return table, per_table.astype(float)


#: the bootstrap stops at this many simulated tables gaining at least as much as the counts
#: (Besag & Clifford 1991): p is then STOP_AT / tables drawn so far, a valid p-value of the
#: sequential test, and a table the model fits (p ~ 0.5) costs ~20 fits instead of 200
STOP_AT = 10
#: tables fitted per batch (the EM runs on a batch at once): small first, where most stop
CHUNK = 25


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
    model itself gain at least as much (a parametric bootstrap of up to *draws* tables,
    sequential: :data:`STOP_AT`; the Beta is not refitted to each, which makes p
    conservative). A few to a few tens where the model holds: the grid's many weights fit
    some noise, more so with more questions and samples. Where fewer than STOP_AT of the
    *draws* tables gain as much, p is ``(1 + tables that do) / (1 + draws)``, as with all
    of them fitted."""
    like, beta_like = _likelihoods(atoms, rates, beta)
    observed = float(_statistics(like, beta_like, np.asarray(weight, float)[None, :])[0])
    table, counts = _simulated_tables(
        atoms, weight, rates, beta, draws, np.random.default_rng(seed)
    )
    sim_like, sim_beta = _likelihoods(table, rates, beta)
    exceeded = np.zeros(0, dtype=bool)
    start, size = 0, CHUNK
    while start < draws:
        batch = counts[start : start + size]
        gains = _statistics(sim_like, sim_beta, batch, threshold=observed)
        exceeded = np.append(exceeded, gains >= observed)
        if exceeded.sum() >= STOP_AT:
            drawn = int(np.flatnonzero(exceeded)[STOP_AT - 1]) + 1
            return observed, STOP_AT / drawn
        start, size = start + len(batch), 2 * size
    return observed, float((1 + exceeded.sum()) / (1 + draws))
