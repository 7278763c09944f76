"""Sample-size planning: the variance of a benchmark score split into the part from
questions and the part from sampling (pure core).

Model (stated by every planner output): questions are exchangeable, each with a success
rate ``p ~ Beta(a, b)`` (the *difficulty distribution*), and its n samples are i.i.d.
Bernoulli(p). The metric's per-question estimate ``f_n(c)`` (``c ~ Binomial(n, p)``) has
mean ``g(p)``, a degree-k polynomial (:mod:`.unbiased`), so with Q questions

* between-question variance ``σ²_Q = Var g(p)``: does not shrink with more samples;
* sampling variance ``σ²_S(n) = E Var(f_n(c) | p)``: shrinks (roughly as 1/n);
* the *rerun* interval's half-width is ``z · sqrt(σ²_S(n) / Q)``, the *benchmark*
  interval's ``z · sqrt((σ²_Q + σ²_S(n)) / Q)`` (z the normal quantile of the level).

Every term is exact under the Beta model, no simulation or quadrature: with
``B(·,·)`` the beta function, ``E g = Σ_i β_i C(k,i) B(a+i, b+k−i)/B(a,b)``, ``E g² =
Σ_j B_j C(2k,j) B(a+j, b+2k−j)/B(a,b)`` (Bernstein coefficients of g²), and
``E f_n² = Σ_c BetaBinomial(c; n, a, b) f_n(c)²``; then ``σ²_Q = E g² − (E g)²`` and
``σ²_S(n) = E f_n² − E g²``.

From a pilot run, ``(a, b)`` are fitted to the per-question counts by beta-binomial
maximum likelihood. The fit is the model's weak point: real difficulties need not be
Beta-shaped (the planner prints the pilot's own intervals beside the model's so the two
can be checked against each other).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from gpassk_oc.core.scoring.known_rates import metric_per_c
from gpassk_oc.core.scoring.metric_names import MetricSpec, parse_metric
from gpassk_oc.core.scoring.unbiased import kernel, square_kernel

__all__ = ["Difficulty", "N_MAX", "VarianceSplit", "fit_beta", "smallest_n", "split"]

#: the largest samples-per-question the planner searches (metric tables stay exact)
N_MAX = 1024


@dataclass(frozen=True)
class Difficulty:
    """p ~ Beta(a, b), and where the parameters came from."""

    a: float
    b: float
    source: str  # "assumed" or "fitted to <pilot>"

    @property
    def mean(self) -> float:
        return self.a / (self.a + self.b)


@dataclass(frozen=True)
class VarianceSplit:
    """Per-question variances of one metric under a difficulty distribution."""

    metric: str
    n: int
    mean: float  # E g(p): the metric over the question population
    between: float  # σ²_Q
    within: float  # σ²_S(n)

    def halfwidth(self, questions: int, kind: str, z: float) -> float:
        """Half-width (fraction) of the *kind* interval with *questions* questions."""
        var = self.within if kind == "rerun" else self.between + self.within
        return z * math.sqrt(max(var, 0.0) / questions)


def _log_beta(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    from scipy.special import betaln

    return np.asarray(betaln(a, b))


def _beta_moments(coef: Sequence[float], d: Difficulty) -> float:
    """E Σ_j coef_j C(D, j) p^j (1−p)^{D−j} for p ~ Beta(a, b), D = len(coef) − 1."""
    deg = len(coef) - 1
    j = np.arange(deg + 1)
    log_comb = np.array(
        [math.lgamma(deg + 1) - math.lgamma(i + 1) - math.lgamma(deg - i + 1) for i in j]
    )
    weights = np.exp(log_comb + _log_beta(d.a + j, d.b + deg - j) - _log_beta(d.a, d.b))
    return float(np.dot(np.asarray(coef, dtype=float), weights))


def beta_binomial_pmf(n: int, d: Difficulty) -> np.ndarray:
    """P(c) for c = 0..n when c ~ Binomial(n, p), p ~ Beta(a, b)."""
    c = np.arange(n + 1)
    log_comb = np.array(
        [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in c]
    )
    return np.exp(log_comb + _log_beta(d.a + c, d.b + n - c) - _log_beta(d.a, d.b))


@lru_cache(maxsize=4096)
def split(metric: str | MetricSpec, d: Difficulty, n: int) -> VarianceSplit:
    """The variance split of *metric* at n samples per question (see module docstring)."""
    spec = parse_metric(metric)
    if n < spec.k:
        raise ValueError(f"{spec.key} needs n >= k = {spec.k}, got n = {n}")
    mean = _beta_moments([float(b) for b in kernel(spec)], d)
    mean_sq = _beta_moments([float(b) for b in square_kernel(spec)], d)
    f = metric_per_c(spec, n)
    assert f is not None
    e_f2 = float(beta_binomial_pmf(n, d) @ (f * f))
    return VarianceSplit(spec.key, n, mean, max(mean_sq - mean**2, 0.0), max(e_f2 - mean_sq, 0.0))


def smallest_n(ok: Callable[[int], bool], lo: int) -> int | None:
    """The smallest n in [lo, N_MAX] with ``ok(n)`` for a monotone *ok* (false, then true:
    σ²_S(n) decreases in n), by bisection; None when even N_MAX is not ok."""
    hi = N_MAX
    if ok(lo):
        return lo
    if not ok(hi):
        return None
    while hi - lo > 1:  # invariant: not ok(lo), ok(hi)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def fit_beta(n: np.ndarray, c: np.ndarray, source: str) -> Difficulty:
    """Beta-binomial maximum-likelihood (a, b) for per-question counts c of n samples.

    Needs at least two questions and n ≥ 2 (with n = 1 the spread of p is not
    identifiable); ValueError otherwise. The optimum is searched on log a, log b from the
    method-of-moments start.
    """
    from scipy.optimize import minimize
    from scipy.special import betaln

    n = np.broadcast_to(np.asarray(n, dtype=float), np.shape(c))
    c = np.asarray(c, dtype=float)
    if c.size < 2:
        raise ValueError(f"a pilot needs at least 2 questions, got {c.size}")
    if n.min() < 2:
        raise ValueError(
            "a pilot needs n >= 2 samples per question (n = 1 cannot separate "
            "question difficulty from sampling noise)"
        )
    rate = c / n
    mean = float(np.clip(rate.mean(), 1e-3, 1 - 1e-3))
    var = float(rate.var())
    binomial_part = float(np.mean(mean * (1 - mean) / n))
    spread = max(var - binomial_part, 1e-4 * mean * (1 - mean))
    total = max(mean * (1 - mean) / spread - 1, 0.05)

    def nll(x: np.ndarray) -> float:
        a, b = math.exp(x[0]), math.exp(x[1])
        return float(-np.sum(betaln(a + c, b + n - c) - betaln(a, b)))

    start = np.log([mean * total, (1 - mean) * total])
    res = minimize(nll, start, method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9})
    a, b = np.exp(np.clip(res.x, -9, 9))
    return Difficulty(float(a), float(b), source)
