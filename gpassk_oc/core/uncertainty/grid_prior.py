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

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.known_rates import estimator_spec, metric_per_c

__all__ = [
    "GRID",
    "GridPrior",
    "fit_grid",
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


def fit_grid(
    n: np.ndarray, c: np.ndarray, source: str, weight: np.ndarray | None = None
) -> GridPrior:
    """The NPMLE of p's distribution on :data:`GRID` for counts c of n samples (*weight*:
    questions per (n, c) entry). Same preconditions as :func:`.difficulty_model.fit_beta`
    (at least 2 questions, n ≥ 2; ValueError otherwise). Accelerated EM from the
    uniform weights (:func:`_squarem`); deterministic."""
    c = np.asarray(c, dtype=float).ravel()
    n = np.broadcast_to(np.asarray(n, dtype=float), c.shape)
    w = np.ones(c.shape) if weight is None else np.asarray(weight, dtype=float)
    if w.sum() < 2:
        raise ValueError(f"fitting a grid prior needs at least 2 questions, got {w.sum():g}")
    if n.min() < 2:
        raise ValueError("fitting a grid prior needs n >= 2 samples per question")
    log_l = _log_likelihood(n, c)
    # scaling a row by a constant changes neither the EM step nor the fixed point
    like = np.exp(log_l - log_l.max(axis=1, keepdims=True))
    return GridPrior(_squarem(like, w / w.sum()), source)


def _squarem(like: np.ndarray, share: np.ndarray) -> np.ndarray:
    """The NPMLE weights by EM, ``π_g ← π_g · Σ_a share_a L_ag / Σ_h π_h L_ah`` (which keeps
    Σ π = 1), accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3): two EM steps
    give a direction, a step along it of length |α| ≥ 1, projected back onto the simplex
    and followed by one EM step; kept only if it does not lower the likelihood, else the
    plain double EM step. Plain EM needs thousands of steps near a spiky optimum."""

    def em(pi: np.ndarray) -> np.ndarray:
        return pi * ((share / (like @ pi)) @ like)

    def loglik(pi: np.ndarray) -> float:
        return float(share @ np.log(like @ pi))

    pi = np.full(like.shape[1], 1.0 / like.shape[1])
    last = loglik(pi)
    for _ in range(MAX_ITER):
        one = em(pi)
        two = em(one)
        r, v = one - pi, two - 2 * one + pi
        alpha = -math.sqrt(float(r @ r) / max(float(v @ v), 1e-300))
        # a floor, not 0: EM is multiplicative and could never revive a zeroed point
        step = np.maximum(pi - 2 * min(alpha, -1.0) * r + alpha * alpha * v, 1e-16)
        step = em(step / step.sum())
        value = loglik(step)
        if not value >= loglik(two):
            step, value = two, loglik(two)
        pi = step
        if value - last <= TOL * max(1.0, abs(value)):
            break
        last = value
    return pi


def grid_posterior_weights(n: int, prior: GridPrior) -> np.ndarray:
    """(n+1) × G: row c is P(p = GRID[g] | c of n) under *prior*."""
    c = np.arange(n + 1)
    log_l = _log_likelihood(np.full(n + 1, n), c)
    with np.errstate(divide="ignore"):
        log_post = log_l + np.log(prior.weight)[None, :]
    log_post -= log_post.max(axis=1, keepdims=True)
    post = np.exp(log_post)
    return post / post.sum(axis=1, keepdims=True)


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
