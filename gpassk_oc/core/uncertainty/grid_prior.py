"""A nonparametric difficulty prior: the NPMLE of the questions' success-rate distribution
on a fixed grid (pure core: numpy, scipy).

The rerun interval needs, where a question's unbiased variance says nothing (n < 2k, a
flat end of the estimator, n near 2k), the posterior expectation ``E[Var(f(C') | p) | c]``
of the sampling variance. A Beta prior (:mod:`.difficulty_model`) cannot take the shape of
bimodal difficulties (the demo's steady model: p near 0.07 or 0.93): its posterior keeps
mass near p = ½, where G-Pass@k_0.5 has all its variance, and overstates the sum ~57×.
Here the prior is the nonparametric maximum-likelihood estimate (Kiefer–Wolfowitz) of the
mixing distribution of p, restricted to :data:`GRID_SIZE` fixed points in [0, 1] (0 and 1
included), fitted by EM over the table's distinct (n, c) atoms; the posterior expectation
is then an exact finite sum over the grid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.known_rates import estimator_spec, metric_per_c

__all__ = [
    "GRID",
    "GridPrior",
    "fit_error",
    "fit_grid",
    "fit_grid_many",
    "grid_posterior_variance_table",
    "grid_posterior_weights",
]

#: grid points of the prior: 0, 1 and a Chebyshev-like spacing, denser near the ends where
#: difficulties pile up and the likelihood of c = 0 or n changes fastest
GRID_SIZE = 200
GRID = (1 - np.cos(np.linspace(0.0, np.pi, GRID_SIZE))) / 2
GRID.setflags(write=False)
#: the fit stops when the log-likelihood gains less than this (relative) in one
#: accelerated step, or after MAX_ITER of them (each three EM steps: a few ms a table;
#: the likelihood is then within ~1e-4 per question of its maximum)
TOL = 1e-7
MAX_ITER = 100


@dataclass(frozen=True, eq=False)
class GridPrior:
    """p takes the value ``GRID[g]`` with probability ``weight[g]``."""

    weight: np.ndarray  # (G,) sums to 1
    source: str

    @property
    def mean(self) -> float:
        return float(self.weight @ GRID)


def _log_likelihood(n: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(A × G) log P(c | n, p_g) without the binomial coefficient (constant per atom: it
    cancels in the EM step and the posterior); −inf where p_g is 0 or 1 and impossible."""
    from scipy.special import xlog1py, xlogy

    c, n = np.asarray(c, dtype=float)[:, None], np.asarray(n, dtype=float)[:, None]
    return xlogy(c, GRID[None, :]) + xlog1py(n - c, -GRID[None, :])


def fit_error(n: np.ndarray, weight: np.ndarray) -> str | None:
    """Why a grid prior cannot be fitted to these questions (None if it can): the
    preconditions of :func:`.difficulty_model.fit_beta`."""
    if weight.sum() < 2:
        return f"fitting a grid prior needs at least 2 questions, got {weight.sum():g}"
    if n.min() < 2:
        return "fitting a grid prior needs n >= 2 samples per question"
    return None


def fit_grid(
    n: np.ndarray, c: np.ndarray, source: str, weight: np.ndarray | None = None
) -> GridPrior:
    """The NPMLE of p's distribution on :data:`GRID` for counts c of n samples (*weight*:
    questions per (n, c) entry). Same preconditions as :func:`.difficulty_model.fit_beta`
    (at least 2 questions, n ≥ 2; ValueError otherwise). Accelerated EM from the
    uniform weights (:func:`_squarem`); deterministic. :func:`fit_grid_many` fits many
    tables at once."""
    c = np.asarray(c, dtype=np.int64).ravel()
    n = np.broadcast_to(np.asarray(n, dtype=np.int64), c.shape)
    w = np.ones(c.shape) if weight is None else np.asarray(weight, dtype=float)
    error = fit_error(n, w)
    if error is not None:
        raise ValueError(error)
    return fit_grid_many([(n, c, w)], source)[0]


#: tables × distinct atoms :func:`fit_grid_many` holds at once (its matrix of shares)
BATCH_CELLS = 2**21


def fit_grid_many(
    tables: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], source: str
) -> list[GridPrior]:
    """:func:`fit_grid` of every ``(n, c, weight)`` table (each passing :func:`fit_error`)
    in one EM over all of them: a report fits hundreds of tables whose questions fall on
    the same few (n, c) atoms (at one n, at most n + 1), so the likelihood is one atoms ×
    grid matrix and an EM step two matrix products for all tables together, where one
    table at a time is bound by per-call overhead. Each table's fit is the one it gets
    alone, up to rounding in the last bits."""
    if not tables:
        return []
    keys = [(np.asarray(n, dtype=np.int64) << 32) + np.asarray(c) for n, c, _ in tables]
    atoms, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    log_l = _log_likelihood(atoms >> 32, atoms & 0xFFFFFFFF)
    # scaling a row by a constant changes neither the EM step nor the fixed point
    like = np.exp(log_l - log_l.max(axis=1, keepdims=True))
    ends = np.cumsum([0] + [len(k) for k in keys])
    per_batch = max(1, BATCH_CELLS // len(atoms))
    out: list[GridPrior] = []
    for first in range(0, len(tables), per_batch):
        batch = range(first, min(first + per_batch, len(tables)))
        share = np.zeros((len(batch), len(atoms)))
        for row, t in enumerate(batch):
            w = np.broadcast_to(np.asarray(tables[t][2], dtype=float), keys[t].shape)
            np.add.at(share[row], inverse[ends[t] : ends[t + 1]], w / w.sum())
        out.extend(GridPrior(pi, source) for pi in _squarem(like, share))
    return out


#: how often (accelerated steps) :func:`_squarem` asks its *settled* hook: each ask costs
#: about one EM step; every 2nd step stopped a grid row's model check soonest (-25%)
SETTLED_EVERY = 2


def _squarem(
    like: np.ndarray,
    share: np.ndarray,
    settled: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The NPMLE weights of every table (a row of *share*: its questions' shares of the
    atoms, the rows of *like*) by EM, ``π_g ← π_g · Σ_a share_a L_ag / Σ_h π_h L_ah``
    (which keeps Σ π = 1), accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3):
    two EM steps give a direction, a step along it of length |α| ≥ 1, projected back onto
    the simplex and followed by one EM step; kept only if it does not lower the
    likelihood, else the plain double EM step. Plain EM needs thousands of steps near a
    spiky optimum. Each table stops on its own (:data:`TOL`, :data:`MAX_ITER`), or where
    *settled(rows, pi, loglik)* says its further steps cannot matter to the caller (every
    :data:`SETTLED_EVERY` steps; *rows* index *share*)."""
    pi = np.full((share.shape[0], like.shape[1]), 1.0 / like.shape[1])
    last = _loglik(like, share, pi)
    active = np.arange(share.shape[0])
    for it in range(MAX_ITER):
        if not active.size:
            break
        s, p = share[active], pi[active]
        one = _em(like, s, p)
        two = _em(like, s, one)
        r, v = one - p, two - 2 * one + p
        alpha = -np.sqrt((r * r).sum(axis=1) / np.maximum((v * v).sum(axis=1), 1e-300))
        # a floor, not 0: EM is multiplicative and could never revive a zeroed point
        step = p - 2 * np.minimum(alpha, -1.0)[:, None] * r + (alpha * alpha)[:, None] * v
        step = np.maximum(step, 1e-16)
        step = _em(like, s, step / step.sum(axis=1, keepdims=True))
        value, plain = _loglik(like, s, step), _loglik(like, s, two)
        worse = ~(value >= plain)
        step[worse], value[worse] = two[worse], plain[worse]
        pi[active] = step
        done = value - last[active] <= TOL * np.maximum(1.0, np.abs(value))
        if settled is not None and it % SETTLED_EVERY == SETTLED_EVERY - 1:
            done |= settled(active, step, value)
        last[active] = value
        active = active[~done]
    return pi


def _em(like: np.ndarray, share: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """One EM step of every row of *pi*. An atom a table does not hold (share 0) adds
    nothing, even where its likelihood under that table's weights underflows to 0."""
    mix = pi @ like.T
    ratio = np.divide(share, mix, out=np.zeros_like(mix), where=share > 0)
    return pi * (ratio @ like)


def _loglik(like: np.ndarray, share: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Per row, Σ_a share_a log Σ_g π_g L_ag over the atoms its table holds."""
    mix = pi @ like.T
    return (share * np.log(mix, out=np.zeros_like(mix), where=share > 0)).sum(axis=1)


def grid_posterior_weights(n: int, prior: GridPrior) -> np.ndarray:
    """(n+1) × G: row c is P(p = GRID[g] | c of n) under *prior*."""
    with np.errstate(divide="ignore"):
        log_post = _count_log_likelihood(n) + np.log(prior.weight)[None, :]
    log_post -= log_post.max(axis=1, keepdims=True)
    post = np.exp(log_post)
    return post / post.sum(axis=1, keepdims=True)


@lru_cache(maxsize=64)
def _count_log_likelihood(n: int) -> np.ndarray:
    """:func:`_log_likelihood` of c = 0..n of n, read-only: the same for every table at n."""
    log_l = _log_likelihood(np.full(n + 1, n), np.arange(n + 1))
    log_l.setflags(write=False)
    return log_l


def grid_posterior_variance_table(
    specs: Sequence[str | MetricSpec], n: int, prior: GridPrior
) -> np.ndarray:
    """(n+1) × len(specs): ``E[Var(f(C') | p) | c] = Σ_g P(p_g | c) Var(f(C') | p_g)`` for
    c = 0..n, with C' ~ Binomial(n, p_g) a rerun's count and f the metric per count; NaN
    for a metric undefined at n (mG-Pass@1)."""
    return grid_posterior_weights(n, prior) @ _variance_at_grid(
        tuple(estimator_spec(s) for s in specs), n
    )


@lru_cache(maxsize=64)
def _variance_at_grid(specs: tuple[MetricSpec, ...], n: int) -> np.ndarray:
    """G × S: Var(f(C') | p_g) for C' ~ Binomial(n, p_g), as Σ pmf·(f − mean)² (no
    cancellation for the tiny variances near p = 0 and 1)."""
    # the binomial pmf from scipy.special (xlogy: 0·log 0 = 0 at the grid's ends), not
    # scipy.stats, whose import alone costs a report about a second; imported here, as
    # in _log_likelihood, so that importing the core stays free of scipy
    from scipy.special import gammaln, xlog1py, xlogy

    c = np.arange(n + 1)[None, :]
    log_choose = gammaln(n + 1) - gammaln(c + 1) - gammaln(n - c + 1)
    pmf = np.exp(log_choose + xlogy(c, GRID[:, None]) + xlog1py(n - c, -GRID[:, None]))
    out = np.empty((len(GRID), len(specs)))
    for j, spec in enumerate(specs):
        f = metric_per_c(spec, n)
        if f is None:
            if spec.undefined is None:
                raise ValueError(f"{spec.key} needs n >= k = {spec.k}, got n = {n}")
            out[:, j] = np.nan
            continue
        mean = pmf @ f
        out[:, j] = (pmf * (f[None, :] - mean[:, None]) ** 2).sum(axis=1)
    out.setflags(write=False)
    return out
