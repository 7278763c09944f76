"""Sample-size planning: the variance of a benchmark score split into the part from
questions and the part from sampling (pure core).

Model (stated by every planner output): questions are exchangeable, each with a success
rate ``p ~ Beta(a, b)`` (the *difficulty distribution*), and its n samples are i.i.d.
Bernoulli(p). The metric's per-question estimate ``f_n(c)`` (``c ~ Binomial(n, p)``) has
mean ``g(p)``, a degree-k polynomial (:mod:`.rerun_variance`), so with Q questions

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
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from gpassk_oc.core.metrics.registry import MetricSpec, parse_metric
from gpassk_oc.core.uncertainty.difficulty_model import (
    Difficulty,
    beta_binomial_pmf,
    beta_moment,
    fit_beta,
)
from gpassk_oc.core.uncertainty.known_rates import metric_per_c
from gpassk_oc.core.uncertainty.rerun_variance import kernel, square_kernel

__all__ = ["Difficulty", "N_MAX", "VarianceSplit", "fit_beta", "smallest_n", "split"]

#: the largest samples-per-question the planner searches (metric tables stay exact)
N_MAX = 1024


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


@lru_cache(maxsize=4096)
def split(metric: str | MetricSpec, d: Difficulty, n: int) -> VarianceSplit:
    """The variance split of *metric* at n samples per question (see module docstring)."""
    spec = parse_metric(metric)
    f = metric_per_c(spec, n)  # avg@n is pass@1's c/n; maj@k is refused (ValueError)
    if f is None:
        raise ValueError(f"{spec.key} needs n >= k = {spec.k}, got n = {n}")
    mean = beta_moment([float(b) for b in kernel(spec)], d)
    mean_sq = beta_moment([float(b) for b in square_kernel(spec)], d)
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
