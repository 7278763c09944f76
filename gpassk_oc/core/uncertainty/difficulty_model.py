"""The Beta difficulty model shared by the planner and the rerun interval (pure core).

Question success rates ``p ~ Beta(a, b)``; a question's count ``c ~ Binomial(n, p)``, so
``c`` is beta-binomial. Expectations of polynomials in p given in Bernstein form are exact
beta-function sums (:func:`beta_moment`), so nothing here simulates or integrates.

Two uses: the planner's population model (:mod:`.sample_size`), and the rerun variance of a
question with ``n < 2k`` (where no unbiased estimate exists, :mod:`.rerun_variance`): its
posterior expectation ``E[Var(f(c') | p) | c]`` under ``p | c ~ Beta(a + c, b + n − c)``,
with ``(a, b)`` fitted to all questions of the run (empirical Bayes), see
:func:`posterior_variance_per_c`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpassk_oc.core.metrics.registry import MetricSpec
from gpassk_oc.core.uncertainty.known_rates import (
    estimator_spec,
    log_binomial_coefficients,
    metric_per_c,
)
from gpassk_oc.core.uncertainty.rerun_variance import square_kernel

__all__ = [
    "Difficulty",
    "beta_binomial_pmf",
    "beta_moment",
    "fit_beta",
    "posterior_variance_per_c",
    "posterior_variance_table",
]


@dataclass(frozen=True)
class Difficulty:
    """p ~ Beta(a, b), and where the parameters came from."""

    a: float
    b: float
    source: str  # "assumed" or "fitted to <pilot>"

    @property
    def mean(self) -> float:
        return self.a / (self.a + self.b)


def _log_beta(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    from scipy.special import betaln

    return np.asarray(betaln(a, b))


def beta_moment(coef: Sequence[float], d: Difficulty) -> float:
    """E Σ_j coef_j C(D, j) p^j (1−p)^{D−j} for p ~ Beta(a, b), D = len(coef) − 1."""
    return float(np.dot(np.asarray(coef, dtype=float), beta_binomial_pmf(len(coef) - 1, d)))


def beta_binomial_pmf(n: int, d: Difficulty) -> np.ndarray:
    """P(c) for c = 0..n when c ~ Binomial(n, p), p ~ Beta(a, b) (= E C(n,c) p^c (1−p)^{n−c},
    hence also the Bernstein weights of :func:`beta_moment`)."""
    c = np.arange(n + 1)
    return np.exp(
        log_binomial_coefficients(n) + _log_beta(d.a + c, d.b + n - c) - _log_beta(d.a, d.b)
    )


#: bounds of the fitted concentration s = a + b. With no spread beyond binomial noise the
#: likelihood keeps rising as s → ∞ (every question at the same p); capping s there keeps
#: the fit a near point mass at the mean rate. Capping a and b separately would not: it
#: moves the mean (a clipped pair (e⁹, e⁹) has mean 1/2 whatever the data say).
LOG_S_BOUNDS = (-9.0, 14.0)
#: bounds of logit μ: μ within ~1e-4 of 0 or 1 (all questions solved or all failed)
LOGIT_MU_BOUNDS = (-9.0, 9.0)
_BOUNDS = [LOGIT_MU_BOUNDS, LOG_S_BOUNDS]  # the optimiser's order: (logit μ, log s)


def fit_beta(
    n: np.ndarray, c: np.ndarray, source: str, weight: np.ndarray | None = None
) -> Difficulty:
    """Beta-binomial maximum-likelihood (a, b) for per-question counts c of n samples
    (*weight*: how many questions each (n, c) entry stands for; 1 each when None).

    Needs at least two questions and n ≥ 2 (with n = 1 the spread of p is not
    identifiable); ValueError otherwise, and when the optimiser does not converge. The
    optimum is searched on (logit μ, log s) with μ = a/(a+b) and s = a + b, starting from
    the weighted mean rate and the method-of-moments s; only s is capped
    (:data:`LOG_S_BOUNDS`), so data without extra-binomial spread give a large s at the
    mean rate, not a Beta centred on 1/2.
    """
    n = np.broadcast_to(np.asarray(n, dtype=float), np.shape(c))
    c = np.asarray(c, dtype=float)
    w = np.ones(c.shape) if weight is None else np.asarray(weight, dtype=float)
    if w.sum() < 2:
        raise ValueError(f"fitting a Beta needs at least 2 questions, got {w.sum():g}")
    if n.min() < 2:
        raise ValueError(
            "fitting a Beta needs n >= 2 samples per question (n = 1 cannot separate "
            "question difficulty from sampling noise)"
        )
    mean, total = _moments_start(n, c, w)
    fast = _newton_fit(n, c, w, mean * total, (1 - mean) * total)
    if fast is not None:
        return Difficulty(fast[0], fast[1], source)
    mu, s = _nelder_mead_fit(n, c, w, mean, total, source)
    return Difficulty(mu * s, (1 - mu) * s, source)


def _moments_start(n: np.ndarray, c: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """The method-of-moments mean rate μ and concentration s = a + b (the search's start)."""
    rate = c / n
    mean = float(np.clip(np.average(rate, weights=w), 1e-4, 1 - 1e-4))
    var = float(np.average((rate - np.average(rate, weights=w)) ** 2, weights=w))
    binomial_part = float(np.average(mean * (1 - mean) / n, weights=w))
    spread = max(var - binomial_part, 1e-12)
    return mean, max(mean * (1 - mean) / spread - 1, 0.05)


def _nelder_mead_fit(
    n: np.ndarray, c: np.ndarray, w: np.ndarray, mean: float, total: float, source: str
) -> tuple[float, float]:
    """(μ, s) maximising the likelihood on (logit μ, log s) within the bounds, by
    Nelder-Mead (any optimum, boundary ones included); ValueError when it fails."""
    from scipy.optimize import minimize  # only here: importing it costs ~1 s
    from scipy.special import betaln

    def nll(x: np.ndarray) -> float:
        mu = 1.0 / (1.0 + math.exp(-x[0]))
        s = math.exp(x[1])
        a, b = mu * s, (1 - mu) * s
        return float(-np.dot(w, betaln(a + c, b + n - c) - betaln(a, b)))

    start = np.array(
        [
            min(max(math.log(mean / (1 - mean)), LOGIT_MU_BOUNDS[0]), LOGIT_MU_BOUNDS[1]),
            min(max(math.log(total), LOG_S_BOUNDS[0]), LOG_S_BOUNDS[1]),
        ]
    )
    # betaln over/underflows harmlessly at the bounds' extremes; no stray stderr
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        res = minimize(
            nll,
            start,
            method="Nelder-Mead",
            bounds=_BOUNDS,
            options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000},
        )
    if not res.success or not np.all(np.isfinite(res.x)):
        raise ValueError(f"the Beta fit to {source} did not converge: {res.message}")
    return 1.0 / (1.0 + math.exp(-float(res.x[0]))), math.exp(float(res.x[1]))


def _newton_fit(
    n: np.ndarray, c: np.ndarray, w: np.ndarray, a: float, b: float
) -> tuple[float, float] | None:
    """The interior maximum of the beta-binomial likelihood by Newton's method on (a, b),
    or None (the caller then runs the general Nelder-Mead search) when the counts are not
    integers, the search leaves the concave region, or the optimum is not strictly inside
    the bounds of :func:`fit_beta` (flat or boundary optima: all solved, none solved, no
    spread beyond binomial noise).

    For integer counts ``log B(a + c, b + n − c) − log B(a, b) = Σ_{i<c} log(a + i) +
    Σ_{i<n−c} log(b + i) − Σ_{i<n} log(a + b + i)``, so the gradient and Hessian are sums
    of 1/(x + i) and 1/(x + i)² read off cumulative sums of length max n: a fit costs a
    few O(max n) steps instead of hundreds of simplex evaluations. Newton converges to the
    stationary point Nelder-Mead approaches, to far below its tolerance.
    """
    if not (np.all(n == np.round(n)) and np.all(c == np.round(c))) or n.max() > 100_000:
        return None
    ni, ci = n.astype(np.int64), c.astype(np.int64)
    fi = ni - ci
    steps = np.arange(int(ni.max()), dtype=float)

    inv, inv2 = np.zeros((3, len(steps) + 1)), np.zeros((3, len(steps) + 1))

    def sums(a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
        # Σ_{i<j} 1/(x + i) and 1/(x + i)² for x = a, b, a + b (rows), j = 0..max n
        t = np.array([[a], [b], [a + b]]) + steps
        np.cumsum(1.0 / t, axis=1, out=inv[:, 1:])
        np.cumsum(1.0 / (t * t), axis=1, out=inv2[:, 1:])
        return inv, inv2

    if not (np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0):
        return None
    for _ in range(200):
        (ga, gb, gs), (ha, hb, hs) = sums(a, b)
        da = float(w @ (ga[ci] - gs[ni]))
        db = float(w @ (gb[fi] - gs[ni]))
        hab = float(w @ hs[ni])
        haa = hab - float(w @ ha[ci])
        hbb = hab - float(w @ hb[fi])
        det = haa * hbb - hab * hab
        if not (haa < 0 and det > 0):  # not locally concave: leave it to the simplex
            return None
        step_a = (hbb * da - hab * db) / det
        step_b = (haa * db - hab * da) / det
        # Newton step for a maximum: x − H⁻¹ g; halve it while it leaves a, b > 0
        scale = 1.0
        while a - scale * step_a <= 0 or b - scale * step_b <= 0:
            scale /= 2
            if scale < 1e-12:
                return None
        a, b = a - scale * step_a, b - scale * step_b
        if abs(step_a) * scale <= 1e-13 * a and abs(step_b) * scale <= 1e-13 * b:
            break
    else:
        return None
    logit, log_s = math.log(a / b), math.log(a + b)
    inside = LOGIT_MU_BOUNDS[0] < logit < LOGIT_MU_BOUNDS[1] and (
        LOG_S_BOUNDS[0] < log_s < LOG_S_BOUNDS[1]
    )
    return (a, b) if inside else None


def posterior_variance_per_c(spec: str | MetricSpec, n: int, prior: Difficulty) -> np.ndarray:
    """For c = 0..n: ``E[Var(f(c') | p) | c] = E[f(c')²] − E[g(p)²]`` with c' a fresh
    Binomial(n, p) count and p | c ~ Beta(a + c, b + n − c). Non-negative, and positive
    for c = 0 and c = n too (unlike the plug-in p = c/n)."""
    spec = estimator_spec(spec)
    f = metric_per_c(spec, n)
    if f is None:
        raise ValueError(f"{spec.key} needs n >= k = {spec.k}, got n = {n}")
    square = _square_floats(spec)
    first = _posterior_pmf(n, n, prior.a, prior.b) @ (f * f)
    second = _posterior_pmf(n, len(square) - 1, prior.a, prior.b) @ square
    return np.maximum(first - second, 0.0)


def posterior_variance_table(
    specs: Sequence[str | MetricSpec], n: int, prior: Difficulty
) -> np.ndarray:
    """(n+1) × len(specs): :func:`posterior_variance_per_c` of every spec at once — one
    matrix product for the first moments and one per length of the square kernels,
    instead of two vector products per spec (a grid report asks for ~20,000)."""
    firsts, groups = _posterior_kernels(tuple(estimator_spec(s) for s in specs), n)
    out = _posterior_pmf(n, n, prior.a, prior.b) @ firsts
    for size, (columns, squares) in groups.items():
        out[:, columns] -= _posterior_pmf(n, size, prior.a, prior.b) @ squares
    return np.maximum(out, 0.0)


@lru_cache(maxsize=64)
def _posterior_kernels(
    specs: tuple[MetricSpec, ...], n: int
) -> tuple[np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """f² per spec as (n+1) × S columns, and the square kernels grouped by their length:
    {length − 1: (the specs' columns, kernels side by side)}."""
    firsts = np.empty((n + 1, len(specs)))
    by_size: dict[int, list[int]] = {}
    for j, spec in enumerate(specs):
        f = metric_per_c(spec, n)
        if f is None and spec.undefined is not None:  # no metric (mG-Pass@1): no variance
            firsts[:, j] = np.nan
            continue
        if f is None:
            raise ValueError(f"{spec.key} needs n >= k = {spec.k}, got n = {n}")
        firsts[:, j] = f * f
        by_size.setdefault(len(_square_floats(spec)) - 1, []).append(j)
    groups = {
        size: (np.array(cols), np.column_stack([_square_floats(specs[j]) for j in cols]))
        for size, cols in by_size.items()
    }
    return firsts, groups


@lru_cache(maxsize=256)
def _square_floats(spec: MetricSpec) -> np.ndarray:
    return np.array([float(b) for b in square_kernel(spec)])


@lru_cache(maxsize=64)
def _posterior_pmf(n: int, size: int, a: float, b: float) -> np.ndarray:
    """(n+1) × (size+1): row c is P(j) of Binomial(size, p), p ~ Beta(a + c, b + n − c)
    (:func:`beta_binomial_pmf` for every c at once; cached: a report's metrics share it)."""
    c = np.arange(n + 1)[:, None]
    j = np.arange(size + 1)[None, :]
    if a + b + n + size < _LGAMMA_TABLE_LIMIT:
        # log B(x, y) = lgamma(x) + lgamma(y) − lgamma(x + y), with every lgamma the grid
        # needs from two tables of n + size + 1 values (instead of 2·(n+1)·(size+1) betaln
        # calls); for small a + b the tables lose no precision worth keeping
        from scipy.special import gammaln

        ga, gb = gammaln(a + np.arange(n + size + 1)), gammaln(b + np.arange(n + size + 1))
        log_b = gammaln(a + b + n) - gammaln(a + b + n + size)
        logs = ga[c + j] + gb[n - c + size - j] - ga[c] - gb[n - c] + log_b
    else:
        post_a, post_b = a + c, b + n - c
        logs = _log_beta(post_a + j, post_b + size - j) - _log_beta(post_a, post_b)
    out = np.exp(log_binomial_coefficients(size)[None, :] + logs)
    out.setflags(write=False)
    return out


#: above this a + b + n + size, lgamma values are large enough (≳ 10⁴·ln 10⁴) that their
#: differences lose digits: the posterior grid uses betaln there
_LGAMMA_TABLE_LIMIT = 1e4
